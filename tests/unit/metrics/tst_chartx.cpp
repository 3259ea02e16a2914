// The by-step charts' x axis: step, epoch, wall time, and time since the run began with the gaps between its
// jobs shown or closed (a job goes on one step's time after the one before it); on a run restarted once.
#include "core/metrics/chartx.h"
#include "core/metrics/runseries.h"
#include "metricevents.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestChartX : public QObject {
    Q_OBJECT
private slots:
    void axes_data();
    void axes();
    void betweenLoggedSteps();
    void resumedStepsUseTheirNewTimes();
};

namespace {

MetricEvent step(qint64 at, double time)
{
    MetricEvent e = testing::stepEvent(at, 1.0 / double(at));
    e.time = time;
    return e;
}

// Job 0 logs steps 10, 20, 30 at t = 1000, 1010, 1020; job 1 starts 100 s later and logs 40, 50.
RunSeries restartedRun()
{
    RunSeries series;
    series.apply({step(10, 1000), step(20, 1010), step(30, 1020)}, 0);
    series.apply({step(40, 1120), step(50, 1130)}, 1);
    return series;
}

} // namespace

Q_DECLARE_METATYPE(torchdeck::ChartX)

void TestChartX::axes_data()
{
    QTest::addColumn<ChartX>("axis");
    QTest::addColumn<bool>("closeGaps");
    QTest::addColumn<QList<double>>("xs");
    QTest::newRow("step") << ChartX::Step << false << QList<double>{10, 20, 30, 40, 50};
    QTest::newRow("epoch") << ChartX::Epoch << false << QList<double>{0.5, 1, 1.5, 2, 2.5}; // 20 steps an epoch
    QTest::newRow("wall time") << ChartX::WallTime << false << QList<double>{1000, 1010, 1020, 1120, 1130};
    QTest::newRow("relative, gaps shown") << ChartX::RelativeTime << false << QList<double>{0, 10, 20, 120, 130};
    QTest::newRow("relative, gaps closed") << ChartX::RelativeTime << true << QList<double>{0, 10, 20, 30, 40};
}

void TestChartX::axes()
{
    QFETCH(ChartX, axis);
    QFETCH(bool, closeGaps);
    QFETCH(QList<double>, xs);
    const RunSeries series = restartedRun();
    const StepClock clock(series.stepTimes(), axis, 20, closeGaps);
    const QList<QPointF> mapped = clock.map(series.series(SeriesKind::TrainLoss).visiblePoints());
    QCOMPARE(mapped.size(), xs.size());
    for (qsizetype i = 0; i < xs.size(); ++i) {
        QCOMPARE(mapped.at(i).x(), xs.at(i));
        QCOMPARE(mapped.at(i).y(), series.series(SeriesKind::TrainLoss).visiblePoints().at(i).y());
    }
    QVERIFY(!chartXName(axis).isEmpty());
}

void TestChartX::betweenLoggedSteps()
{
    const RunSeries series = restartedRun();
    const StepClock clock(series.stepTimes(), ChartX::WallTime, 0, false);
    QCOMPARE(clock.map(15), 1005.0);                                                 // halfway between steps 10 and 20
    QVERIFY(qIsNaN(clock.map(5)));                                                   // before the first logged step
    QVERIFY(qIsNaN(clock.map(60)));                                                  // after the last
    QVERIFY(qIsNaN(StepClock(series.stepTimes(), ChartX::Epoch, 0, false).map(10))); // no steps per epoch
}

void TestChartX::resumedStepsUseTheirNewTimes()
{
    // Job 1 resumes from step 20: its step 30 replaces job 0's, with its own time.
    RunSeries series;
    series.apply({step(10, 1000), step(20, 1010), step(30, 1020)}, 0);
    series.apply({testing::resumedStart(20), step(30, 1200)}, 1);
    const StepClock clock(series.stepTimes(), ChartX::RelativeTime, 0, true);
    QCOMPARE(clock.map(30), 20.0); // closed: job 1 goes on one step (10 s) after job 0's step 20
    QCOMPARE(StepClock(series.stepTimes(), ChartX::WallTime, 0, false).map(30), 1200.0);
}

TORCHDECK_TEST_MAIN(TestChartX)
#include "tst_chartx.moc"
