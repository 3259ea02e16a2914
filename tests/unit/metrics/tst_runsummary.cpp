// A run's final and best values (the overlay's table): on the visible curve only, lowest loss, highest
// accuracy, per-epoch loss when a run logs no steps.
#include "core/metrics/runsummary.h"
#include "metricevents.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestRunSummary : public QObject {
    Q_OBJECT
private slots:
    void finalAndBest();
    void discardedStepsDoNotCount();
    void epochOnlyRun();
    void emptyRun();
};

namespace {

MetricEvent step(qint64 at, double loss)
{
    return testing::stepEvent(at, loss, 1);
}

MetricEvent epoch(qint64 n, double train, double val, double accuracy)
{
    return testing::epochEvent(n, kNoCount, train, val, kNoValue, accuracy);
}

} // namespace

void TestRunSummary::finalAndBest()
{
    RunSeries series;
    series.apply({step(10, 0.9), step(20, 0.3), step(30, 0.4), epoch(1, 0.5, 0.45, 0.7), epoch(2, 0.35, 0.5, 0.8),
                  epoch(3, 0.3, 0.48, 0.75)});
    const RunSummary summary = summarize(series);
    QCOMPARE(summary.steps, 30.0);
    QCOMPARE(summary.finalLoss, 0.4);
    QCOMPARE(summary.bestLoss, 0.3);
    QCOMPARE(summary.finalValLoss, 0.48);
    QCOMPARE(summary.bestValLoss, 0.45);
    QCOMPARE(summary.bestValLossEpoch, 1.0);
    QCOMPARE(summary.finalAccuracy, 0.75);
    QCOMPARE(summary.bestAccuracy, 0.8);
}

void TestRunSummary::discardedStepsDoNotCount()
{
    RunSeries series;
    series.apply({step(10, 0.9), step(20, 0.1), step(30, 0.05)}, 0);
    series.apply({testing::resumedStart(10), step(20, 0.5), step(30, 0.4)}, 1); // a branch from step 10
    const RunSummary summary = summarize(series);
    QCOMPARE(summary.finalLoss, 0.4);
    QCOMPARE(summary.bestLoss, 0.4); // not the discarded 0.05
}

void TestRunSummary::epochOnlyRun()
{
    RunSeries series;
    series.apply({epoch(1, 0.6, 0.7, kNoValue), epoch(2, 0.4, 0.6, kNoValue)});
    const RunSummary summary = summarize(series);
    QVERIFY(qIsNaN(summary.steps));
    QCOMPARE(summary.finalLoss, 0.4);
    QCOMPARE(summary.bestLoss, 0.4);
    QVERIFY(qIsNaN(summary.bestAccuracy));
}

void TestRunSummary::emptyRun()
{
    const RunSummary summary = summarize(RunSeries());
    QVERIFY(qIsNaN(summary.finalLoss) && qIsNaN(summary.bestValLoss) && qIsNaN(summary.steps));
}

TORCHDECK_TEST_MAIN(TestRunSummary)
#include "tst_runsummary.moc"
