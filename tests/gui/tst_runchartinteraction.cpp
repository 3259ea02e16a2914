#include "../unit/metrics/metricevents.h"
#include "core/store/runmetrics.h"
#include "gui/runcharts.h"
#include "gui/runcharttheme.h"
#include "gui/runchartview.h"
#include "runchartstest.h"
#include "testmain.h"

#include <QAbstractAxis>
#include <QChart>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

using namespace torchdeck;
using namespace torchdeck::testing;

namespace {
MetricEvent step(qint64 at, double loss, double samplesPerSecond = kNoValue)
{
    return testing::stepEvent(at, loss, 1, samplesPerSecond);
}

MetricEvent epoch(qint64 n, double val)
{
    return testing::epochEvent(n, 3, val * 0.9, val, 2);
}

QValueAxis *xAxis(RunChartView *view)
{
    return static_cast<QValueAxis *>(view->chart()->axes(Qt::Horizontal).constFirst());
}

QPalette darkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    return dark;
}
} // namespace

// Looking into the charts: zoom and pan keep their range while points arrive, reset fits again, hovering
// names the nearest point, samples/s is drawn, other runs overlay, the theme follows the palette, PNG export.
class TestRunChartInteraction : public QObject {
    Q_OBJECT
private slots:
    void zoomKeepsTheRangeWhilePointsArrive()
    {
        RunMetrics metrics;
        QList<MetricEvent> events;
        for (int i = 1; i <= 1000; ++i)
            events.append(step(i, 1.0 / i));
        metrics.ingest(events);
        RunCharts charts;
        QVERIFY(showRun(charts, &metrics));
        RunChartView *view = charts.view(SeriesKind::TrainLoss);
        QCOMPARE(xAxis(view)->max(), 1000.0);

        view->zoomBy(4.0, view->rect().center());
        QVERIFY(view->isZoomed());
        const double lo = xAxis(view)->min(), hi = xAxis(view)->max();
        QVERIFY2(hi - lo < 300 && lo > 300 && hi < 700, qPrintable(QStringLiteral("%1..%2").arg(lo).arg(hi)));
        for (const QPointF &p : charts.drawnPoints(SeriesKind::TrainLoss))
            QVERIFY(p.x() >= lo - 1 && p.x() <= hi + 1); // the visible range only
        metrics.ingest(step(2000, 0.0001));
        charts.redraw();
        QCOMPARE(xAxis(view)->min(), lo);
        QCOMPARE(xAxis(view)->max(), hi);

        view->panBy(QPointF(-100, 0)); // dragging left shows later steps
        QVERIFY(xAxis(view)->min() > lo);

        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, view->viewport()->rect().center());
        QVERIFY(!view->isZoomed());
        QCOMPARE(xAxis(view)->max(), 2000.0);
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).constLast(), QPointF(2000, 0.0001));
    }

    void wheelZoomsAndHoverNamesTheNearestPoint()
    {
        RunMetrics metrics;
        metrics.ingest({step(10, 1.0, 500), step(20, 0.5, 520), step(30, 0.25, 480)});
        RunCharts charts;
        QVERIFY(showRun(charts, &metrics));
        QCOMPARE(charts.drawnPoints(SeriesKind::Throughput),
                 (QList<QPointF>{QPointF(10, 500), QPointF(20, 520), QPointF(30, 480)}));

        RunChartView *view = charts.view(SeriesKind::TrainLoss);
        QChart *chart = view->chart();
        const QPointF scene = chart->mapToScene(chart->mapToPosition(QPointF(20, 0.5), chart->series().constFirst()));
        const QPoint at = view->mapFromScene(scene);
        QCOMPARE(view->pointTextNear(at + QPoint(3, -2)), QStringLiteral("train loss: 20, 0.5"));
        QCOMPARE(view->pointTextNear(QPoint(2, 2)), QString()); // far from every point

        QWheelEvent wheel(QPointF(at), QPointF(view->mapToGlobal(at)), {}, QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(view->viewport(), &wheel);
        QVERIFY(view->isZoomed());
        QVERIFY(xAxis(view)->max() - xAxis(view)->min() < 20);
        charts.resetZoom();
        QVERIFY(!view->isZoomed());
        QCOMPARE(xAxis(view)->min(), 10.0);
    }

    void otherRunsOverlay()
    {
        RunMetrics metrics;
        metrics.ingest({step(1, 1.0), step(2, 0.8), epoch(1, 0.9)});
        auto other = std::make_shared<RunSeries>();
        other->apply({step(1, 2.0), step(2, 1.5), step(3, 1.2), epoch(1, 1.4), epoch(2, 1.1)});
        RunCharts charts;
        charts.setRun(&metrics);
        charts.setComparison({{QStringLiteral("id-1"), QStringLiteral("baseline"), other}});
        const QColor color = charts.comparisonColor(0);
        charts.setComparison({{QStringLiteral("id-0"), QStringLiteral("first"), other},
                              {QStringLiteral("id-1"), QStringLiteral("baseline"), other}});
        QCOMPARE(charts.comparisonColor(1), color); // a run keeps its colour as others come
        QVERIFY(charts.comparisonColor(0) != color);
        charts.setComparison({{QStringLiteral("id-1"), QStringLiteral("baseline"), other}});
        QCOMPARE(charts.comparedRuns(), 1);
        QCOMPARE(charts.drawnComparison(0, SeriesKind::TrainLoss).size(), 3);
        QCOMPARE(charts.drawnComparison(0, SeriesKind::ValLoss), (QList<QPointF>{QPointF(1, 1.4), QPointF(2, 1.1)}));
        QCOMPARE(xAxis(charts.view(SeriesKind::TrainLoss))->max(), 3.0); // the axes hold both runs
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).size(), 2);
        charts.setComparison({});
        QCOMPARE(charts.comparedRuns(), 0);
        QCOMPARE(xAxis(charts.view(SeriesKind::TrainLoss))->max(), 2.0);
    }

    void themeFollowsThePalette()
    {
        RunCharts charts;
        const QPalette light = charts.palette();
        QVERIFY(!isDarkPalette(light));
        for (QChart *chart : charts.charts())
            QCOMPARE(chart->theme(), QChart::ChartThemeLight);

        charts.setPalette(darkPalette());
        for (QChart *chart : charts.charts()) {
            QCOMPARE(chart->theme(), QChart::ChartThemeDark);
            QCOMPARE(chart->backgroundBrush().color(), QColor(0x1e, 0x1e, 0x1e));
            QCOMPARE(chart->titleBrush().color(), QColor(0xe8, 0xe8, 0xe8));
            for (QAbstractAxis *axis : chart->axes())
                QCOMPARE(axis->labelsColor(), QColor(0xe8, 0xe8, 0xe8));
        }
        charts.setLogScale(true); // new axes take the palette too
        for (QAbstractAxis *axis : charts.charts().constFirst()->axes())
            QCOMPARE(axis->labelsColor(), QColor(0xe8, 0xe8, 0xe8));

        charts.setPalette(light);
        for (QChart *chart : charts.charts())
            QCOMPARE(chart->theme(), QChart::ChartThemeLight);
    }

    void exportsPng()
    {
        RunMetrics metrics;
        metrics.ingest({step(1, 1.0), step(2, 0.8)});
        RunCharts charts;
        charts.resize(800, 500);
        charts.setRun(&metrics);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("charts.png"));
        QVERIFY(charts.exportPng(path));
        QImage image(path);
        QCOMPARE(image.size(), QSize(800, 500));
    }
};

TORCHDECK_TEST_MAIN(TestRunChartInteraction)
#include "tst_runchartinteraction.moc"
