#include "core/metrics/metricscsv.h"
#include "core/metrics/runseries.h"
#include "metricevents.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

// The metrics CSV the terminal (`metrics --csv`) and the run view's export write.
class TestMetricsCsv : public QObject {
    Q_OBJECT
private slots:
    void rowsOfStepsAndEpochs()
    {
        QCOMPARE(metricsCsvHeader(), QStringLiteral("attempt,event,time,epoch,step,loss,lr,samples_per_s,val_"
                                                    "loss,val_accuracy,seconds,discarded,source"));
        MetricEvent step = testing::stepEvent(130, 0.125, 2, 5120);
        step.time = 1700000000; // 10 significant digits, as `metrics --csv` always wrote: whole seconds
        step.lr = 0.001;
        QCOMPARE(metricsCsvRow(1, step, false),
                 QStringLiteral("1,step,1700000000,2,130,0.125,0.001,5120,,,,0,metrics_file"));

        const MetricEvent epoch = testing::epochEvent(3, kNoCount, 0.25, 0.3, 12.5, 0.875);
        QCOMPARE(metricsCsvRow(0, epoch, true), QStringLiteral("0,epoch,,3,,0.25,,,0.3,0.875,12.5,1,metrics_file"));
        QCOMPARE(metricsCsvRow(0, epoch, false).count(u','), metricsCsvHeader().count(u','));
    }

    void extrasAndSources()
    {
        MetricEvent fromFile = testing::epochEvent(1, kNoCount, kNoValue, 0.5);
        fromFile.source = MetricSource::LoggerFiles;
        fromFile.extras = {{QStringLiteral("val_f1"), 0.75}, {QStringLiteral("odd, \"name\""), 2}};
        // The log's val loss gives way to the file's; its train loss fills a gap.
        MetricEvent fromLog = testing::epochEvent(1, kNoCount, kNoValue, 0.6);
        fromLog.source = MetricSource::Log;
        MetricEvent trainFromLog = fromLog;
        trainFromLog.valLoss = kNoValue;
        trainFromLog.loss = 0.4;
        const QList<StoredMetricEvent> events{{0, fromFile}, {0, fromLog}, {0, trainFromLog}};
        QCOMPARE(supersededEvents(events), (QList<bool>{false, true, false}));
        QCOMPARE(metricsCsv(events),
                 QStringLiteral("attempt,event,time,epoch,step,loss,lr,samples_per_s,val_loss,val_accuracy,seconds,"
                                "discarded,source,val_f1,\"odd, \"\"name\"\"\"\n"
                                "0,epoch,,1,,,,,0.5,,,0,logger_files,0.75,2\n"
                                "0,epoch,,1,,,,,0.6,,,1,log,,\n"
                                "0,epoch,,1,,0.4,,,,,,0,log,,\n"));
    }

    void logValuesStoredBeforeAFilesAreSuperseded()
    {
        MetricEvent fromLog = testing::stepEvent(1, 0.9);
        fromLog.source = MetricSource::Log;
        MetricEvent fromFile = fromLog;
        fromFile.source = MetricSource::MetricsFile;
        fromFile.loss = 0.8;
        QCOMPARE(supersededEvents({{0, fromLog}, {0, fromFile}}), (QList<bool>{true, false}));
        RunSeries series;
        series.apply({fromLog, fromFile});
        QCOMPARE(series.series(SeriesKind::TrainLoss).visiblePoints(), (QList<QPointF>{{1, 0.8}}));
    }

    void otherEventsHaveNoRow()
    {
        MetricEvent start;
        start.kind = MetricEventKind::Start;
        QCOMPARE(metricsCsvRow(0, start, false), QString());
        MetricEvent checkpoint;
        checkpoint.kind = MetricEventKind::Checkpoint;
        QCOMPARE(metricsCsvRow(0, checkpoint, false), QString());
    }

    void aResumeFromAnEarlierCheckpointSupersedesTheLaterRows()
    {
        // Attempt 0 logs steps 10..40 and epochs 1..2; attempt 1 resumes from the checkpoint at step 20
        // (epoch 1) and logs 30..40 again.
        QList<StoredMetricEvent> events;
        const auto step = [&](int attempt, qint64 at) {
            events.append({attempt, testing::stepEvent(at, 1.0 / double(at))});
        };
        const auto epoch = [&](int attempt, qint64 number) {
            events.append({attempt, testing::epochEvent(number, kNoCount, 1.0 / double(number), kNoValue)});
        };
        step(0, 10);
        step(0, 20);
        epoch(0, 1);
        step(0, 30);
        step(0, 40);
        epoch(0, 2);
        events.append({1, testing::resumedStart(20, 1)});
        step(1, 30);
        step(1, 40);
        epoch(1, 2);
        QCOMPARE(supersededEvents(events),
                 (QList<bool>{false, false, false, true, true, true, false, false, false, false}));
        const QStringList lines = metricsCsv(events).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 10); // the header and nine rows: the start event has none
        QCOMPARE(lines.at(4), QStringLiteral("0,step,,,30,0.03333333333,,,,,,1,metrics_file"));
        QCOMPARE(lines.at(7), QStringLiteral("1,step,,,30,0.03333333333,,,,,,0,metrics_file"));
    }

    void anEpochOverTwoLinesIsOneRow()
    {
        // A log's "Time taken for epoch 1 is 21.5 sec" then "train_loss: 0.6, val_loss: 0.5": two epoch events of
        // epoch 1, the second with the seconds again. Epoch 2 the other way round; epoch 3 twice with another loss
        // (a script that prints it twice) stays two rows, as does an epoch of another attempt.
        const auto epoch = [](qint64 number, double loss, double valLoss, double seconds) {
            MetricEvent e = testing::epochEvent(number, kNoCount, loss, valLoss, seconds);
            e.source = MetricSource::Log;
            return e;
        };
        MetricEvent step = testing::stepEvent(7, 0.55);
        step.source = MetricSource::Log;
        const QList<StoredMetricEvent> events{{0, epoch(1, kNoValue, kNoValue, 21.5)},
                                              {0, epoch(1, 0.6, 0.5, 21.5)},
                                              {0, epoch(2, 0.3, 0.25, kNoValue)},
                                              {0, epoch(2, kNoValue, kNoValue, 22.5)},
                                              {0, epoch(3, 0.2, kNoValue, kNoValue)},
                                              {0, epoch(3, 0.21, kNoValue, kNoValue)},
                                              {0, step},
                                              {0, epoch(3, kNoValue, 0.1, kNoValue)},
                                              {1, epoch(3, kNoValue, kNoValue, 9.0)}};
        const QList<StoredMetricEvent> rows = joinedEpochRows(events);
        QCOMPARE(rows.size(), 7);
        QCOMPARE(rows.at(0).event.loss, 0.6);
        QCOMPARE(rows.at(0).event.valLoss, 0.5);
        QCOMPARE(rows.at(0).event.seconds, 21.5);
        QCOMPARE(rows.at(1).event.epoch, 2);
        QCOMPARE(rows.at(1).event.loss, 0.3);
        QCOMPARE(rows.at(1).event.seconds, 22.5);
        QCOMPARE(rows.at(2).event.loss, 0.2);
        QCOMPARE(rows.at(3).event.loss, 0.21);
        QCOMPARE(rows.at(4).event.kind, MetricEventKind::Step);
        QVERIFY(!MetricEvent::has(rows.at(5).event.loss)); // after a step: a row of its own
        QCOMPARE(rows.at(6).attempt, 1);
        const QStringList csv = metricsCsv(events).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(csv.size(), 1 + 7);
        QVERIFY(csv.at(1).startsWith(QStringLiteral("0,epoch,,1,,0.6,,,0.5,,21.5,")));
    }
};

TORCHDECK_TEST_MAIN(TestMetricsCsv)
#include "tst_metricscsv.moc"
