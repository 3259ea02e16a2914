// The attempt markers watch puts on its loss chart: one where each later attempt's points begin, named after
// the job that ended before it and why.
#include "../attemptrecords.h"
#include "term/watchmarkers.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::term;
using namespace torchdeck::testing;

Q_DECLARE_METATYPE(torchdeck::JobRecord)

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

TORCHDECK_TEST_MAIN(TestWatchMarkers)
#include "tst_watchmarkers.moc"
