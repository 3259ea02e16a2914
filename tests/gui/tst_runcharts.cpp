#include "../unit/metrics/metricevents.h"
#include "core/store/runmetrics.h"
#include "gui/runcharts.h"
#include "testmain.h"

#include <QSignalSpy>
#include <QTest>

using namespace torchdeck;

namespace {
MetricEvent step(qint64 at, double loss)
{
    return testing::stepEvent(at, loss, 1);
}

MetricEvent epoch(qint64 n, double train, double val, double seconds)
{
    return testing::epochEvent(n, 10, train, val, seconds);
}
} // namespace

class TestRunCharts : public QObject {
    Q_OBJECT
private slots:
    void chartsUpdateWhenEventsAreIngested()
    {
        RunMetrics metrics;
        RunCharts charts;
        charts.resize(900, 600);
        charts.setRun(&metrics);
        QSignalSpy redrawn(&charts, &RunCharts::redrawn);
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).size(), 0);
        QList<MetricEvent> events;
        for (int i = 1; i <= 50; ++i)
            events.append(step(i * 10, 1.0 / i));
        metrics.ingest(events);
        metrics.ingest(epoch(1, 0.2, 0.25, 3.5));
        QTRY_VERIFY(!redrawn.isEmpty());
        QTRY_COMPARE(charts.drawnPoints(SeriesKind::TrainLoss).size(), 50);
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).constLast(), QPointF(500, 1.0 / 50));
        QCOMPARE(charts.drawnPoints(SeriesKind::ValLoss), QList<QPointF>{QPointF(1, 0.25)});
        QCOMPARE(charts.drawnBars(), 1);

        // Live: more events, coalesced into one more redraw.
        const int before = int(redrawn.count());
        metrics.ingest(step(510, 0.01));
        metrics.ingest(epoch(2, 0.1, 0.15, 3.0));
        QTRY_COMPARE(charts.drawnBars(), 2);
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).constLast(), QPointF(510, 0.01));
        QCOMPARE(redrawn.count(), before + 1);
    }

    void extraSeriesGetChartsOfTheirOwn()
    {
        RunMetrics metrics;
        RunCharts charts;
        charts.resize(900, 800);
        charts.setRun(&metrics);
        charts.show();
        QVERIFY(charts.drawnExtras(false).isEmpty());
        QList<MetricEvent> events;
        for (int i = 1; i <= 3; ++i) {
            MetricEvent e = step(i, 1.0 / i);
            e.extras = {{QStringLiteral("grad_norm"), 10.0 + i}};
            events.append(e);
        }
        MetricEvent summary = epoch(1, 0.2, 0.25, 3.5);
        summary.extras = {{QStringLiteral("val_f1"), 0.7}, {QStringLiteral("val_auc"), 0.9}};
        events.append(summary);
        metrics.ingest(events);
        QTRY_COMPARE(charts.drawnExtras(false), QStringList{QStringLiteral("grad_norm")});
        QCOMPARE(charts.drawnExtras(true), (QStringList{QStringLiteral("val_f1"), QStringLiteral("val_auc")}));
        QCOMPARE(charts.drawnExtra(QStringLiteral("grad_norm"), false),
                 (QList<QPointF>{QPointF(1, 11), QPointF(2, 12), QPointF(3, 13)}));
        QCOMPARE(charts.drawnExtra(QStringLiteral("val_auc"), true), QList<QPointF>{QPointF(1, 0.9)});
        RunMetrics other; // a run without extras: the charts go
        charts.setRun(&other);
        QVERIFY(charts.drawnExtras(true).isEmpty());
    }

    void longRunsAreDecimated()
    {
        RunMetrics metrics;
        QList<MetricEvent> events;
        for (int i = 1; i <= 200000; ++i)
            events.append(step(i, 1.0 + std::sin(i * 0.01)));
        metrics.ingest(events);
        RunCharts charts;
        charts.resize(800, 600);
        charts.setRun(&metrics);
        const auto drawn = charts.drawnPoints(SeriesKind::TrainLoss);
        QVERIFY(drawn.size() > 100);
        QVERIFY2(drawn.size() <= 4 * 2000 + 2, qPrintable(QString::number(drawn.size())));
        QCOMPARE(drawn.constFirst().x(), 1.0);
        QCOMPARE(drawn.constLast().x(), 200000.0);
    }

    void logScaleDropsNonPositivePoints()
    {
        RunMetrics metrics;
        metrics.ingest({step(1, 0.0), step(2, 0.5), step(3, 0.25)});
        RunCharts charts;
        charts.setRun(&metrics);
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).size(), 3);
        charts.setLogScale(true);
        QVERIFY(charts.logScale());
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).size(), 2);
        charts.setLogScale(false);
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss).size(), 3);
    }

    void resumeKeepsOneCurve()
    {
        RunMetrics metrics;
        RunCharts charts;
        charts.setRun(&metrics);
        metrics.ingest({step(10, 1.0), step(20, 0.9), step(30, 0.8)});
        metrics.ingest({testing::resumedStart(20), step(30, 0.7)}, 1);
        charts.redraw();
        QCOMPARE(charts.drawnPoints(SeriesKind::TrainLoss),
                 (QList<QPointF>{QPointF(10, 1.0), QPointF(20, 0.9), QPointF(30, 0.7)}));
    }
};

TORCHDECK_TEST_MAIN(TestRunCharts)
#include "tst_runcharts.moc"
