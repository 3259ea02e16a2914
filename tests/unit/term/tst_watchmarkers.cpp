// The attempt markers watch puts on its loss chart: one where each later attempt's points begin, named after
// the job that ended before it and why.
#include "term/watchmarkers.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::term;

Q_DECLARE_METATYPE(torchdeck::JobRecord)

namespace {

JobRecord job(int attempt, const char *state, const char *resumeFrom = "", int exitCode = -1)
{
    JobRecord record;
    record.attempt = attempt;
    record.jobId = QString::number(100 + attempt);
    record.state = QString::fromLatin1(state);
    record.resumeFrom = QString::fromLatin1(resumeFrom);
    record.exitCode = exitCode;
    return record;
}

CheckpointRecord checkpoint(int attempt, qint64 step)
{
    CheckpointRecord record;
    record.attempt = attempt;
    record.step = step;
    record.path = QStringLiteral("ckpt-%1.pt").arg(step);
    return record;
}

void steps(MetricSeries *series, int attempt, int from, int to)
{
    for (int step = from; step <= to; ++step)
        series->append(step, 1.0 / step, attempt);
}

// Attempt 0 trains steps 1..10 and hits its wall time (latest checkpoint at 6); attempt 1 resumes there and
// trains 7..12; then the user resumes from step 4 and attempt 2 trains 5..8.
MetricSeries restartedThenBranched()
{
    MetricSeries series;
    steps(&series, 0, 1, 10);
    series.discardAfter(6);
    steps(&series, 1, 7, 12);
    series.discardAfter(4);
    steps(&series, 2, 5, 8);
    return series;
}

} // namespace

class TestWatchMarkers : public QObject {
    Q_OBJECT
private slots:
    void markers_data();
    void markers();
};

void TestWatchMarkers::markers_data()
{
    QTest::addColumn<QList<JobRecord>>("jobs");
    QTest::addColumn<QList<double>>("xs");
    QTest::addColumn<QStringList>("labels");
    QTest::addRow("one job") << QList<JobRecord>{job(0, "running")} << QList<double>{} << QStringList{};
    QTest::addRow("restart, then branch")
        << QList<JobRecord>{job(0, "timeout"), job(1, "completed", "ckpt-6.pt", 0), job(2, "running", "ckpt-4.pt")}
        << QList<double>{7, 5}
        << QStringList{QStringLiteral("job 100: wall time"), QStringLiteral("job 101: branched")};
    QTest::addRow("preempted, its successor without points yet")
        << QList<JobRecord>{job(0, "preempted"), job(1, "completed", "ckpt-6.pt", 0), job(2, "timeout", "ckpt-4.pt"),
                            job(3, "pending", "ckpt-12.pt")}
        << QList<double>{7, 5}
        << QStringList{QStringLiteral("job 100: preempted"), QStringLiteral("job 101: branched")};
}

void TestWatchMarkers::markers()
{
    QFETCH(QList<JobRecord>, jobs);
    QFETCH(QList<double>, xs);
    QFETCH(QStringList, labels);
    const QList<CheckpointRecord> checkpoints = {checkpoint(0, 4), checkpoint(0, 6), checkpoint(1, 12)};
    const QList<ChartMarker> markers = attemptMarkers(restartedThenBranched(), jobs, checkpoints);
    QCOMPARE(markers.size(), xs.size());
    for (qsizetype i = 0; i < markers.size(); ++i) {
        QCOMPARE(markers.at(i).x, xs.at(i));
        QCOMPARE(markers.at(i).label, labels.at(i));
    }
}

QTEST_GUILESS_MAIN(TestWatchMarkers)
#include "tst_watchmarkers.moc"
