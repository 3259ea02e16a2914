// The run view's readable charts: ticks on round numbers, TensorBoard's smoothing with the raw curve behind,
// attempt boundaries (job id and why it ended) with the discarded steps dimmed, a click on a boundary, and one
// crosshair across the charts by step.
#include "../unit/metrics/metricevents.h"
#include "core/metrics/smoothing.h"
#include "core/store/runmetrics.h"
#include "gui/runcharts.h"
#include "gui/runchartview.h"
#include "runchartstest.h"
#include "testmain.h"

#include <QCategoryAxis>
#include <QChart>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

namespace {

MetricEvent step(qint64 at, double loss)
{
    return testing::stepEvent(at, loss, 1, 1000 + at);
}

MetricEvent resumedAt(qint64 atStep)
{
    MetricEvent e = resumedStart(atStep);
    e.resumePath = QStringLiteral("ckpt-%1.pt").arg(atStep);
    return e;
}

JobRecord job(int attempt, const char *state, const QString &resumeFrom = {})
{
    JobRecord record;
    record.attempt = attempt;
    record.jobId = QString::number(700 + attempt);
    record.state = QString::fromLatin1(state);
    record.resumeFrom = resumeFrom;
    record.stdoutPath = QStringLiteral("/runs/r/job-%1.out").arg(attempt);
    return record;
}

QPoint widgetPoint(RunChartView *view, QPointF value)
{
    QChart *chart = view->chart();
    return view->mapFromScene(chart->mapToScene(chart->mapToPosition(value, chart->series().constFirst())));
}

} // namespace

class TestRunChartAttempts : public QObject {
    Q_OBJECT
private slots:
    void ticksFallOnRoundNumbers();
    void smoothingKeepsTheRawCurveBehind();
    void attemptsAreMarkedAndDiscardedStepsDimmed();
    void oneCrosshairAcrossTheStepCharts();
    void timeAlongX();
};

void TestRunChartAttempts::ticksFallOnRoundNumbers()
{
    RunMetrics metrics;
    QList<MetricEvent> events;
    for (int i = 0; i <= 40; ++i)
        events.append(step(8092 + i * 75, 0.177 - i * 0.00277)); // the old screenshot's 8092 .. 11092, 0.177 .. 0.066
    metrics.ingest(events);
    RunCharts charts;
    QVERIFY(showRun(charts, &metrics, QSize(1200, 700)));
    const QChart *chart = charts.view(SeriesKind::TrainLoss)->chart();
    auto *x = qobject_cast<QCategoryAxis *>(chart->axes(Qt::Horizontal).constFirst());
    auto *y = qobject_cast<QCategoryAxis *>(chart->axes(Qt::Vertical).constFirst());
    QVERIFY(x && y);
    // Ticks follow the range once the chart has laid it out (queued).
    QTRY_VERIFY(x->categoriesLabels().value(0).endsWith(u'k'));
    for (const QString &label : x->categoriesLabels())
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+(\\.\\d)?k$")).match(label).hasMatch(), qPrintable(label));
    for (const QString &label : y->categoriesLabels()) {
        const double value = label.toDouble();
        QVERIFY2(qAbs(value * 100 - qRound(value * 100)) < 1e-9, qPrintable(label)); // 0.08, 0.10, ...
    }
}

void TestRunChartAttempts::smoothingKeepsTheRawCurveBehind()
{
    RunMetrics metrics;
    QList<MetricEvent> events;
    for (int i = 1; i <= 60; ++i)
        events.append(step(i, (i % 2 ? 1.0 : 0.0) + 1.0 / i)); // noisy
    metrics.ingest(events);
    RunCharts charts;
    charts.resize(1000, 600);
    charts.setRun(&metrics);
    QVERIFY(charts.drawnSmoothed(SeriesKind::TrainLoss).isEmpty()); // off by default
    charts.setSmoothing(0.9);
    QCOMPARE(charts.smoothing(), 0.9);
    const QList<QPointF> raw = charts.drawnPoints(SeriesKind::TrainLoss);
    const QList<QPointF> smooth = charts.drawnSmoothed(SeriesKind::TrainLoss);
    QCOMPARE(raw.size(), 60);
    QCOMPARE(smooth, smoothed(raw, 0.9));                    // every point kept: 60 points need no decimation
    QCOMPARE(smooth.constFirst().y(), raw.constFirst().y()); // debiased: the first point is its own value
    QCOMPARE(charts.drawnSmoothed(SeriesKind::Throughput).size(), 60);
    charts.setSmoothing(5); // clamped
    QCOMPARE(charts.smoothing(), 0.99);
    charts.setSmoothing(0);
    QVERIFY(charts.drawnSmoothed(SeriesKind::TrainLoss).isEmpty());

    // The hover readout names both values.
    charts.setSmoothing(0.5);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    charts.redraw();
    RunChartView *view = charts.view(SeriesKind::TrainLoss);
    const QString text = view->pointTextNear(widgetPoint(view, raw.at(10)));
    QVERIFY2(text.contains(QStringLiteral("raw")) || text.contains(QStringLiteral("smoothed")), qPrintable(text));
}

void TestRunChartAttempts::attemptsAreMarkedAndDiscardedStepsDimmed()
{
    // Attempt 0 trains steps 1..30 and hits its wall time; attempt 1 resumes from step 20 and trains 21..40.
    RunMetrics metrics;
    QList<MetricEvent> first;
    for (int i = 1; i <= 30; ++i)
        first.append(step(i, 1.0 / i));
    metrics.ingest(first, 0);
    QList<MetricEvent> second{resumedAt(20)};
    for (int i = 21; i <= 40; ++i)
        second.append(step(i, 0.9 / i));
    metrics.ingest(second, 1);

    RunCharts charts;
    QVERIFY(showRun(charts, &metrics));
    CheckpointRecord checkpoint;
    checkpoint.attempt = 0;
    checkpoint.step = 20;
    checkpoint.path = QStringLiteral("ckpt-20.pt");
    charts.setAttempts({job(0, "timeout"), job(1, "running", checkpoint.path)}, {checkpoint});
    charts.redraw();

    RunChartView *view = charts.view(SeriesKind::TrainLoss);
    QCOMPARE(view->markers().size(), 1);
    QCOMPARE(view->markers().constFirst().label, QStringLiteral("job 700: wall time"));
    QCOMPARE(view->markers().constFirst().x, 21.0);
    QCOMPARE(charts.view(SeriesKind::Throughput)->markers().size(), 1);
    QCOMPARE(charts.drawnDiscarded().size(), 10); // steps 21..30 of attempt 0
    QCOMPARE(charts.drawnDiscarded().constFirst(), QPointF(21, 1.0 / 21));
    QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).size(), 40);

    QSignalSpy clicked(&charts, &RunCharts::attemptClicked);
    const QPoint boundary = widgetPoint(view, QPointF(21, 0.05));
    QCOMPARE(view->markerNear(boundary), 0);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, boundary);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.constFirst().constFirst().toInt(), 0);
    QVERIFY(!view->isZoomed()); // the click was the boundary's, not a rubber band's
}

void TestRunChartAttempts::oneCrosshairAcrossTheStepCharts()
{
    RunMetrics metrics;
    metrics.ingest({step(10, 1.0), step(20, 0.5), step(30, 0.25)});
    RunCharts charts;
    QVERIFY(showRun(charts, &metrics));
    RunChartView *loss = charts.view(SeriesKind::TrainLoss);
    RunChartView *throughput = charts.view(SeriesKind::Throughput);
    QTest::mouseMove(loss->viewport(), widgetPoint(loss, QPointF(20, 0.5)));
    QTRY_VERIFY(!qIsNaN(throughput->crosshair()));
    QVERIFY(qAbs(throughput->crosshair() - 20) < 0.5);
    QVERIFY(qIsNaN(charts.view(SeriesKind::ValLoss)->crosshair())); // by epoch: another x
}

void TestRunChartAttempts::timeAlongX()
{
    // Job 0 logs steps 10..30 at t = 1000..1020 and ends; job 1 waits 100 s in the queue, then logs 40, 50.
    RunMetrics metrics;
    QList<MetricEvent> first, second;
    for (int i = 1; i <= 3; ++i) {
        MetricEvent e = step(i * 10, 1.0 / i);
        e.time = 1000 + (i - 1) * 10;
        first.append(e);
    }
    for (int i = 4; i <= 5; ++i) {
        MetricEvent e = step(i * 10, 1.0 / i);
        e.time = 1120 + (i - 4) * 10;
        second.append(e);
    }
    metrics.ingest(first, 0);
    metrics.ingest(second, 1);
    RunCharts charts;
    QVERIFY(showRun(charts, &metrics));
    charts.setAttempts({job(0, "timeout"), job(1, "running", QStringLiteral("ckpt-30.pt"))}, {});
    const auto xs = [&charts](SeriesKind kind) {
        QList<double> values;
        for (const QPointF &point : charts.drawnPoints(kind))
            values.append(point.x());
        return values;
    };
    QCOMPARE(xs(SeriesKind::TrainLoss), (QList<double>{10, 20, 30, 40, 50}));
    charts.setChartX(ChartX::WallTime, false);
    QCOMPARE(xs(SeriesKind::TrainLoss), (QList<double>{1000, 1010, 1020, 1120, 1130}));
    QCOMPARE(xs(SeriesKind::Throughput), xs(SeriesKind::TrainLoss)); // every chart by step moves
    charts.setChartX(ChartX::RelativeTime, false);
    QCOMPARE(xs(SeriesKind::TrainLoss), (QList<double>{0, 10, 20, 120, 130}));
    QCOMPARE(charts.view(SeriesKind::TrainLoss)->markers().constFirst().x, 120.0); // the boundary moves too
    charts.setChartX(ChartX::RelativeTime, true);                                  // the 100 s in the queue closed
    QCOMPARE(xs(SeriesKind::TrainLoss), (QList<double>{0, 10, 20, 30, 40}));
    auto *x =
        qobject_cast<QCategoryAxis *>(charts.view(SeriesKind::TrainLoss)->chart()->axes(Qt::Horizontal).constFirst());
    QTRY_VERIFY(x->categoriesLabels().contains(QStringLiteral("10s"))); // durations along x
    QCOMPARE(xs(SeriesKind::ValLoss), QList<double>{});                 // by epoch: untouched (this run logged none)
}

TORCHDECK_TEST_MAIN(TestRunChartAttempts)
#include "tst_runchartattempts.moc"
