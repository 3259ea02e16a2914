#include "core/metrics/metricscsv.h"

#include <QTest>

using namespace torchdeck;

// The metrics CSV the terminal (`metrics --csv`) and the run view's export write.
class TestMetricsCsv : public QObject {
    Q_OBJECT
private slots:
    void rowsOfStepsAndEpochs()
    {
        QCOMPARE(metricsCsvHeader(),
                 QStringLiteral("attempt,event,time,epoch,step,loss,lr,samples_per_s,val_loss,val_accuracy,seconds"));
        MetricEvent step;
        step.kind = MetricEventKind::Step;
        step.time = 1700000000; // 10 significant digits, as `metrics --csv` always wrote: whole seconds
        step.epoch = 2;
        step.step = 130;
        step.loss = 0.125;
        step.lr = 0.001;
        step.samplesPerSecond = 5120;
        QCOMPARE(metricsCsvRow(1, step), QStringLiteral("1,step,1700000000,2,130,0.125,0.001,5120,,,"));

        MetricEvent epoch;
        epoch.kind = MetricEventKind::Epoch;
        epoch.epoch = 3;
        epoch.loss = 0.25;
        epoch.valLoss = 0.3;
        epoch.valAccuracy = 0.875;
        epoch.seconds = 12.5;
        QCOMPARE(metricsCsvRow(0, epoch), QStringLiteral("0,epoch,,3,,0.25,,,0.3,0.875,12.5"));
        QCOMPARE(metricsCsvRow(0, epoch).count(u','), metricsCsvHeader().count(u','));
    }

    void otherEventsHaveNoRow()
    {
        MetricEvent start;
        start.kind = MetricEventKind::Start;
        QCOMPARE(metricsCsvRow(0, start), QString());
        MetricEvent checkpoint;
        checkpoint.kind = MetricEventKind::Checkpoint;
        QCOMPARE(metricsCsvRow(0, checkpoint), QString());
    }
};

QTEST_GUILESS_MAIN(TestMetricsCsv)
#include "tst_metricscsv.moc"
