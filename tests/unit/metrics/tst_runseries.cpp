#include "core/metrics/metricsreader.h"
#include "core/metrics/runseries.h"
#include "metricevents.h"
#include "testmain.h"

#include <QFile>
#include <QTest>

using namespace torchdeck;

namespace {
QList<MetricEvent> events(const char *name, MetricsReader::Format format = MetricsReader::Format::JsonLines)
{
    QFile f(QStringLiteral(TORCHDECK_TEST_DATA "/metrics/") + QLatin1StringView(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    MetricsReader reader(format);
    return reader.feed(f.readAll());
}

MetricEvent step(qint64 s, double loss)
{
    return testing::stepEvent(s, loss);
}
} // namespace

class TestRunSeries : public QObject {
    Q_OBJECT
private slots:
    void oneRunAcrossTwoJobs();
    void inJobRequeueInOneFile();
    void restartFromScratchSupersedesAll();
    void checkpointsAfterTheResumePointAreDiscarded();
    void progressAndEta();
    void plainLogsRestartingWithoutStartEvents();
    void aTornCheckpointIsSaidToTheEnd();
};

// A start that fell back over a torn checkpoint is remembered through the restart after it, which resumes from
// the checkpoint written in its place: the run says so to its end.
void TestRunSeries::aTornCheckpointIsSaidToTheEnd()
{
    const auto resumedFrom = [](const QString &path, qint64 skipped) {
        MetricEvent e = testing::resumedStart(0);
        e.resumePath = path;
        e.resumeSkipped = skipped;
        return e;
    };
    MetricEvent fresh;
    fresh.kind = MetricEventKind::Start;
    RunSeries run;
    run.apply({fresh}, 0);
    QCOMPARE(run.info().tornSkipped, 0);
    run.apply({resumedFrom(QStringLiteral("/r/checkpoint-32.pt"), 1)}, 1);
    run.apply({resumedFrom(QStringLiteral("/r/checkpoint-41.pt"), 0)}, 2);
    QCOMPARE(run.info().resumeSkipped, 0);
    QCOMPARE(run.info().tornSkipped, 1);
    QCOMPARE(run.info().tornResumedFrom, QStringLiteral("/r/checkpoint-32.pt"));
}

void TestRunSeries::oneRunAcrossTwoJobs()
{
    RunSeries run;
    run.apply(events("attempt1.jsonl"), 0);
    const RunSeriesChanges resumed = run.apply(events("attempt2.jsonl").first(), 1);
    const int loss = static_cast<int>(SeriesKind::TrainLoss);
    QCOMPARE(resumed.discarded[loss].first, 20); // steps 21..27 of the killed job
    QCOMPARE(resumed.discarded[loss].last, 26);
    run.apply(events("attempt2.jsonl").mid(1), 1);

    const MetricSeries &s = run.series(SeriesKind::TrainLoss);
    QCOMPARE(s.size(), 27 + 40);
    QCOMPARE(s.visibleCount(), 60);
    const QList<QPointF> curve = s.visiblePoints();
    for (int i = 0; i < curve.size(); ++i)
        QCOMPARE(curve[i].x(), i + 1.0);
    for (qsizetype row = 0; row < s.size(); ++row) {
        QCOMPARE(s.isDiscarded(row), row >= 20 && row < 27);
        QCOMPARE(s.attempt(row), row < 27 ? 0 : 1);
    }
    // The resumed attempt repeats steps 21..27 with the same data: the same values come back.
    QCOMPARE(s.y(20), s.y(27));

    const MetricSeries &epochs = run.series(SeriesKind::ValLoss);
    QCOMPARE(epochs.size(), 3);
    QCOMPARE(epochs.visibleCount(), 3);
    QVERIFY(run.series(SeriesKind::ValAccuracy).isEmpty()); // null in every epoch event
    QCOMPARE(run.series(SeriesKind::EpochSeconds).y(0), 8.31);

    QCOMPARE(run.checkpoints().size(), 3); // steps 20 (attempt 0), 40, 60
    QCOMPARE(run.checkpoints().first().step, 20);
    QCOMPARE(run.checkpoints().last().reason, QStringLiteral("final"));
    QCOMPARE(run.checkpoints().last().attempt, 1);
    QVERIFY(!run.checkpoints().first().discarded);

    const RunInfo &info = run.info();
    QCOMPARE(info.starts, 2);
    QCOMPARE(info.epochs, 3);
    QCOMPARE(info.stepsPerEpoch, 20);
    QCOMPARE(info.worldSize, 2);
    QVERIFY(info.stopped);
    QCOMPARE(info.stopReason, QStringLiteral("done"));
}

// Slurm's in-job requeue keeps the job id and appends to the same metrics file.
void TestRunSeries::inJobRequeueInOneFile()
{
    RunSeries run;
    run.apply(events("attempt1.jsonl") + events("attempt2.jsonl"), 0);
    const MetricSeries &s = run.series(SeriesKind::TrainLoss);
    QCOMPARE(s.visibleCount(), 60);
    QCOMPARE(s.discardedPoints().size(), 7);
}

void TestRunSeries::restartFromScratchSupersedesAll()
{
    RunSeries run;
    MetricEvent start;
    start.kind = MetricEventKind::Start;
    run.apply(start);
    for (int i = 1; i <= 10; ++i)
        run.apply(step(i, 1.0));
    run.apply(start, 1); // no resume origin: from the beginning
    QCOMPARE(run.series(SeriesKind::TrainLoss).visibleCount(), 0);
    run.apply(step(1, 2.0), 1);
    QCOMPARE(run.series(SeriesKind::TrainLoss).visiblePoints(), QList<QPointF>{QPointF(1, 2.0)});
    QCOMPARE(run.series(SeriesKind::TrainLoss).size(), 11);
}

void TestRunSeries::checkpointsAfterTheResumePointAreDiscarded()
{
    RunSeries run;
    MetricEvent ckpt;
    ckpt.kind = MetricEventKind::Checkpoint;
    for (qint64 s : {20, 25}) {
        ckpt.step = s;
        ckpt.path = QStringLiteral("ckpt-%1.pt").arg(s);
        run.apply(ckpt);
    }
    const MetricEvent start = testing::resumedStart(20, 1); // ckpt-25.pt was torn: the trainer fell back to 20
    const RunSeriesChanges changes = run.apply(start, 1);
    QVERIFY(changes.checkpoints);
    QVERIFY(!run.checkpoints()[0].discarded);
    QVERIFY(run.checkpoints()[1].discarded);
}

void TestRunSeries::progressAndEta()
{
    RunSeries run;
    const QList<MetricEvent> first = events("attempt1.jsonl");
    run.apply(first);
    RunProgress p = run.progress();
    QCOMPARE(p.epochsDone, 1);
    QCOMPARE(p.epochsTotal, 3);
    QCOMPARE(p.step, 27);
    QCOMPARE(p.secondsPerEpoch, 8.31);
    QCOMPARE(p.etaSeconds, 2 * 8.31);
    run.apply(events("attempt2.jsonl"), 1);
    p = run.progress();
    QCOMPARE(p.epochsDone, 3);
    QCOMPARE(p.step, 60);
    QCOMPARE(p.etaSeconds, 0.0);
    QCOMPARE(p.secondsPerEpoch, (8.31 + 8.02 + 7.95) / 3);
    QCOMPARE(p.lastLoss, run.series(SeriesKind::TrainLoss).y(66));
    // Resumed for 5 epochs: before the new attempt's first metrics, the run's own total counts (at the same pace).
    const RunProgress resumed = againstEpochsTotal(p, 5);
    QCOMPARE(resumed.epochsTotal, 5);
    QCOMPARE(resumed.etaSeconds, 2 * p.secondsPerEpoch);
    QCOMPARE(resumed.epochsDone, 3);
    QCOMPARE(againstEpochsTotal(p, kNoCount).etaSeconds, 0.0); // no total of its own: as the series says
}

// A user's script has no start events: a second job that counts steps from 1 again supersedes the first.
void TestRunSeries::plainLogsRestartingWithoutStartEvents()
{
    RunSeries run;
    run.apply(events("../logs/pytorch-tutorial.log", MetricsReader::Format::LogPatterns), 0);
    QCOMPARE(run.series(SeriesKind::TrainLoss).visibleCount(), 12);
    run.apply(events("../logs/pytorch-tutorial.log", MetricsReader::Format::LogPatterns), 1);
    const MetricSeries &s = run.series(SeriesKind::TrainLoss);
    QCOMPARE(s.size(), 24);
    QCOMPARE(s.visibleCount(), 12);
    QVERIFY(s.isDiscarded(0));
    QVERIFY(!s.isDiscarded(12));
}

TORCHDECK_TEST_MAIN(TestRunSeries)
#include "tst_runseries.moc"
