// A user's own command's log as metrics: per-rank duplicates, srun labels, the attempt's progress, and the
// user's patterns (named in errors, bounded when they backtrack).
#include "core/metrics/logexplain.h"
#include "core/metrics/logmetrics.h"
#include "core/metrics/metricsreader.h"
#include "testmain.h"

#include <QElapsedTimer>
#include <QTest>

using namespace torchdeck;

class TestLogMetrics : public QObject {
    Q_OBJECT
private slots:
    void everyRanksLineCountsOnce()
    {
        // mp.spawn with 2 ranks, seed 001's print on each; a chunk boundary inside epoch 2's pair.
        MetricsReader reader(MetricsReader::Format::LogPatterns);
        LogProgress progress;
        QList<MetricEvent> kept = firstOfEachRank(
            reader.feed("epoch: 1/3, loss = 0.500000\nepoch: 1/3, loss = 0.520000\nepoch: 2/3, loss = 0.300000\n"),
            100.0, &progress);
        kept += firstOfEachRank(reader.feed("epoch: 2/3, loss = 0.310000\nepoch: 3/3, loss = 0.200000\n"), 101.0,
                                &progress);
        QCOMPARE(kept.size(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(kept[i].kind, MetricEventKind::Epoch);
            QCOMPARE(kept[i].epoch, i + 1);
            QCOMPARE(kept[i].epochs, 3);
        }
        QCOMPARE(kept[0].loss, 0.5); // the first rank to print it, not a zig-zag between ranks
        QCOMPARE(kept[1].loss, 0.3);
        QCOMPARE(kept[1].time, 100.0); // log lines carry no time: when they were read
        QCOMPARE(kept[2].time, 101.0);
        QCOMPARE(progress.epoch, 3);
    }

    void srunLabelsKeepRankZero()
    {
        MetricsReader reader(MetricsReader::Format::LogPatterns);
        const QList<MetricEvent> events = reader.feed("1: epoch: 1/2, loss = 0.9\n0: epoch: 1/2, loss = 0.4\n"
                                                      "12: epoch: 2/2, loss = 0.8\n0: epoch: 2/2, loss = 0.3\n");
        QCOMPARE(events.size(), 2);
        QCOMPARE(events[0].loss, 0.4);
        QCOMPARE(events[1].loss, 0.3);
    }

    void progressIsTheAttempts()
    {
        // Attempt 0 got to epoch 4 and step 400; attempt 1 resumed and is at epoch 3, step 300.
        RunSeries series;
        for (int epoch = 1; epoch <= 4; ++epoch) {
            MetricEvent e;
            e.kind = MetricEventKind::Epoch;
            e.source = MetricSource::Log;
            e.epoch = epoch;
            e.loss = 1.0 / epoch;
            series.apply(e, 0);
            MetricEvent s;
            s.source = MetricSource::Log;
            s.step = epoch * 100;
            s.loss = 1.0 / epoch;
            series.apply(s, 0);
        }
        MetricEvent e;
        e.kind = MetricEventKind::Epoch;
        e.source = MetricSource::Log;
        e.epoch = 3;
        e.loss = 0.3;
        series.apply(e, 1);
        MetricEvent s;
        s.source = MetricSource::Log;
        s.step = 300;
        s.loss = 0.3;
        series.apply(s, 1);
        QCOMPARE(logProgressOf(series, 0).epoch, 4);
        QCOMPARE(logProgressOf(series, 1).epoch, 3);
        QCOMPARE(logProgressOf(series, 1).step, 300);
        MetricEvent fromFile; // the log's count goes on from its own lines, not a file's
        fromFile.kind = MetricEventKind::Epoch;
        fromFile.epoch = 9;
        fromFile.valLoss = 0.1;
        series.apply(fromFile, 1);
        QCOMPARE(logProgressOf(series, 2).epoch, 0); // a new attempt starts over
    }

    void userPatternsComeFirstAndAreNamed()
    {
        const QStringList mine{QStringLiteral(R"(it (?<step>\d+) cost (?<loss>[0-9.]+))")};
        QCOMPARE(userLogPatternProblem(mine), QString());
        PatternParser parser;
        QCOMPARE(parser.setPatterns(jobLogPatterns(mine)), QString());
        const auto e = parser.parse(u"it 7 cost 0.25");
        QVERIFY(e);
        QCOMPARE(e->step, 7);
        QCOMPARE(e->loss, 0.25);

        const QString broken = userLogPatternProblem({QStringLiteral("loss=(?<loss>[0-9.]+")});
        QVERIFY2(broken.startsWith(u"pattern \"loss=(?<loss>[0-9.]+\": "), qPrintable(broken));
        QVERIFY2(broken.endsWith(u"at offset 20"), qPrintable(broken)); // in the user's text
        QVERIFY(userLogPatternProblem({QStringLiteral("(?<speed>\\d+)")}).contains(u"unknown group \"speed\""));
        QVERIFY(userLogPatternProblem({QStringLiteral("epoch \\d+")}).contains(u"captures no value"));
        // A pattern of context groups only is a context pattern: accepted, and said so.
        QCOMPARE(userLogPatternProblem({QStringLiteral("epoch (?<epoch>\\d+)")}), QString());
        const QStringList notes = contextPatternNotes({QStringLiteral("epoch (?<epoch>\\d+) in (?<seconds>\\S+)"),
                                                       QStringLiteral("it (?<step>\\d+) (?<loss>\\S+)"),
                                                       QStringLiteral("broken (?<epoch>\\d+")});
        QCOMPARE(notes, QStringList{QStringLiteral(
                            "pattern \"epoch (?<epoch>\\d+) in (?<seconds>\\S+)\" is a context pattern: what it "
                            "reads (epoch, seconds) places the lines after it, until the next line it reads")});
    }

    void twoLineSummaryWithAContextPattern()
    {
        // The common two-line summary: the epoch and its time, then the losses without an epoch.
        MetricsReader reader(MetricsReader::Format::LogPatterns);
        QCOMPARE(reader.patterns().setPatterns(
                     jobLogPatterns({QStringLiteral(R"(^== epoch (?<epoch>\d+) done in (?<seconds>[\d.]+) s)"),
                                     QStringLiteral(R"(^train (?<loss>[\d.]+) / val (?<val_loss>[\d.]+)$)")})),
                 QString());
        QVERIFY(PatternParser::isContextPattern({QStringLiteral("c"), QStringLiteral(R"(epoch (?<epoch>\d+))")}));
        LogProgress progress;
        const QList<MetricEvent> kept = firstOfEachRank(
            reader.feed(
                "== epoch 0 done in 12.5 s\ntrain 0.9 / val 0.8\n== epoch 1 done in 11.5 s\ntrain 0.7 / val 0.6\n"),
            1.0, &progress);
        RunSeries series;
        series.apply(kept);
        QCOMPARE(series.series(SeriesKind::ValLoss).visiblePoints(), (QList<QPointF>{{1, 0.8}, {2, 0.6}}));
        QCOMPARE(series.series(SeriesKind::EpochTrainLoss).visiblePoints(), (QList<QPointF>{{1, 0.9}, {2, 0.7}}));
        QCOMPARE(series.series(SeriesKind::EpochSeconds).visiblePoints(), (QList<QPointF>{{1, 12.5}, {2, 11.5}}));
    }

    void explainSaysWhichRuleReadEachLine()
    {
        const QByteArray log =
            "Epoch 3/10\nbanner\n10/100 [==] - loss: 0.5\n1: 10/100 [==] - loss: 0.6\nit 300 L=0.4\n";
        const QList<ExplainedLine> lines =
            explainLog(log, jobLogPatterns({QStringLiteral(R"(it (?<step>\d+) L=(?<loss>[\d.]+))")}));
        QStringList text;
        for (const ExplainedLine &line : lines)
            text.append(QString::number(line.number) + u' ' + explanationText(line));
        QCOMPARE(
            text,
            (QStringList{
                QStringLiteral("1 general reader: context: epoch 3/10"),
                QStringLiteral("3 general reader: step 210 (epoch 3/10): loss 0.5"),
                QStringLiteral("4 nothing: another rank's line"),
                QStringLiteral("5 pattern \"it (?<step>\\d+) L=(?<loss>[\\d.]+)\": step 300 (epoch 3/10): loss 0.4")}));
    }

    void explainSaysAnEpochFromZeroAndWhatContextSet()
    {
        const QByteArray log = "Epoch=0, train_loss=0.5\nTraining time: 3.5s\nEpoch: [1][100/391]\n";
        QStringList text;
        for (const ExplainedLine &line : explainLog(log, jobLogPatterns({})))
            text.append(QString::number(line.number) + u' ' + explanationText(line));
        QCOMPARE(text, (QStringList{QStringLiteral("1 general reader: epoch 1, printed 0: loss 0.5"),
                                    QStringLiteral("2 general reader: context; epoch 1, printed 0: seconds 3.5"),
                                    QStringLiteral("3 general reader: context: epoch 2, step 100/391 of the epoch")}));
    }

    void epochsFromZeroReadInParts()
    {
        // The tracker reads a log in passes, each with a parser of its own: the second goes on from the first's
        // stored events (counting from 0, and the epoch it was in).
        RunSeries series;
        MetricsReader first(MetricsReader::Format::LogPatterns);
        LogProgress progress = logProgressOf(series, 0);
        QList<MetricEvent> kept =
            firstOfEachRank(first.feed("Epoch=0, train_loss=0.5\nEpoch=0, train_loss=0.6\n"), 1.0, &progress);
        for (MetricEvent &e : kept)
            e.source = MetricSource::Log;
        series.apply(kept);
        MetricsReader second(MetricsReader::Format::LogPatterns);
        progress = logProgressOf(series, 0);
        resumeLogParser(&second.patterns(), progress);
        kept = firstOfEachRank(second.feed("Epoch=1, train_loss=0.4\nTraining time: 3.5s\n"), 2.0, &progress);
        for (MetricEvent &e : kept)
            e.source = MetricSource::Log;
        series.apply(kept);
        QCOMPARE(series.series(SeriesKind::EpochTrainLoss).visiblePoints(), (QList<QPointF>{{1, 0.5}, {2, 0.4}}));
        QCOMPARE(series.series(SeriesKind::EpochSeconds).visiblePoints(), (QList<QPointF>{{2, 3.5}}));
    }

    void catastrophicPatternGivesUpQuickly()
    {
        PatternParser parser;
        QCOMPARE(parser.setPatterns(jobLogPatterns({QStringLiteral("^(a+)+b(?<loss>\\d)")})), QString());
        const QString line = QString(40, u'a') + u'c';
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!parser.parse(line)); // no match, and no hang: PCRE2's match limit ends it
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
    }
};

TORCHDECK_TEST_MAIN(TestLogMetrics)
#include "tst_logmetrics.moc"
