#include "core/metrics/patternparser.h"
#include "testmain.h"

#include <QFile>
#include <QTest>

using namespace torchdeck;

namespace {
QList<MetricEvent> parseFile(PatternParser &parser, const char *name)
{
    QFile f(QStringLiteral(TORCHDECK_TEST_DATA "/logs/") + QLatin1StringView(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QList<MetricEvent> events;
    for (const QByteArray &line : f.readAll().split('\n'))
        events += parser.parseLine(line);
    return events;
}
} // namespace

class TestPatternParser : public QObject {
    Q_OBJECT
private slots:
    void singleLines_data();
    void singleLines();
    void tutorialLog();
    void pytorchTutorialLog();
    void lightningProgressBar();
    void kerasFit();
    void kerasLogReadInParts();
    void torchdeckTrainerStdout();
    void keyValueLog();
    void customPatterns();
    void invalidPatternsAreErrors_data();
    void invalidPatternsAreErrors();
};

void TestPatternParser::singleLines_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<MetricEventKind>("kind");
    QTest::addColumn<qint64>("epoch");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<double>("loss");
    using K = MetricEventKind;
    QTest::addRow("epoch x/y") << QStringLiteral("epoch: 3/10, loss = 0.0421") << K::Epoch << 3LL << -1LL << 0.0421;
    QTest::addRow("Epoch x/y caps") << QStringLiteral("Epoch 3/10 - train loss: 4.2e-2") << K::Epoch << 3LL << -1LL
                                    << 0.042;
    QTest::addRow("bracketed") << QStringLiteral("Epoch [3/10] Step [100/938] Loss: 0.0421") << K::Step << 3LL
                               << 2 * 938LL + 100 << 0.0421;
    QTest::addRow("lightning") << QStringLiteral("Epoch 0:  20%|##  | 10/50 [00:01<00:04, 42.1it/s, train_loss=0.5]")
                               << K::Step << 1LL << 10LL << 0.5;
    QTest::addRow("epoch N") << QStringLiteral("[12:00:01] epoch 4 done, loss=0.25 val_loss=0.3") << K::Epoch << 4LL
                             << -1LL << 0.25;
    QTest::addRow("key=value") << QStringLiteral("step=50 train_loss=0.1414 lr=3e-4") << K::Step << -1LL << 50LL
                               << 0.1414;
    QTest::addRow("nan loss") << QStringLiteral("epoch: 2/10, loss = nan") << K::Epoch << 2LL << -1LL
                              << std::numeric_limits<double>::quiet_NaN();
}

void TestPatternParser::singleLines()
{
    QFETCH(QString, line);
    QFETCH(MetricEventKind, kind);
    QFETCH(qint64, epoch);
    QFETCH(qint64, step);
    QFETCH(double, loss);
    PatternParser parser;
    const std::optional<MetricEvent> e = parser.parse(line);
    QVERIFY(e.has_value());
    QCOMPARE(e->kind, kind);
    QCOMPARE(e->epoch, epoch);
    QCOMPARE(e->step, step);
    if (std::isnan(loss))
        QVERIFY(std::isnan(e->loss));
    else
        QCOMPARE(e->loss, loss);
}

void TestPatternParser::tutorialLog()
{
    PatternParser parser;
    const QList<MetricEvent> events = parseFile(parser, "tutorial.log");
    QCOMPARE(events.size(), 5);
    QCOMPARE(events[2].kind, MetricEventKind::Epoch);
    QCOMPARE(events[2].epoch, 3);
    QCOMPARE(events[2].epochs, 5);
    QCOMPARE(events[2].loss, 0.2575);
    QCOMPARE(events[2].valLoss, 0.2749);
    QCOMPARE(events[2].valAccuracy, 0.75);
}

void TestPatternParser::pytorchTutorialLog()
{
    PatternParser parser;
    const QList<MetricEvent> events = parseFile(parser, "pytorch-tutorial.log");
    QCOMPARE(events.size(), 12);
    QCOMPARE(events[0].step, 100);
    QCOMPARE(events[6].epoch, 2);
    QCOMPARE(events[6].step, 700); // (2-1)*600 + 100
    QCOMPARE(events[6].epochStep, 100);
    QCOMPARE(events[6].stepsPerEpoch, 600);
}

void TestPatternParser::lightningProgressBar()
{
    PatternParser parser;
    const QList<MetricEvent> events = parseFile(parser, "lightning.log");
    // 5 refreshes with a loss per epoch; the repeated final refresh collapses into one, and it is also the
    // epoch's summary.
    QCOMPARE(events.size(), 12);
    QCOMPARE(events[0].epoch, 1); // Lightning counts from 0
    QCOMPARE(events[0].step, 10);
    QCOMPARE(events[4].step, 50);
    QCOMPARE(events[5].kind, MetricEventKind::Epoch);
    QCOMPARE(events[5].epoch, 1);
    QCOMPARE(events[6].epoch, 2);
    QCOMPARE(events[6].step, 60);
    QCOMPARE(events[10].step, 100);
    QCOMPARE(events[0].loss, 0.762);
}

void TestPatternParser::kerasFit()
{
    PatternParser parser;
    const QList<MetricEvent> events = parseFile(parser, "keras.log");
    // Per epoch: a Step per refresh of the \r-rewritten progress line (the last at step 469), then the
    // epoch's summary.
    QCOMPARE(events.size(), 5 + 5 + 3);
    QCOMPARE(events[0].kind, MetricEventKind::Step);
    QCOMPARE(events[0].epoch, 1);
    QCOMPARE(events[0].step, 1);
    QCOMPARE(events[0].loss, 0.988);
    QCOMPARE(events[3].step, 469);
    QVERIFY(!MetricEvent::has(events[3].valLoss));
    QCOMPARE(events[4].kind, MetricEventKind::Epoch);
    QCOMPARE(events[4].epoch, 1);
    QCOMPARE(events[4].epochs, 2);
    QCOMPARE(events[4].loss, 0.52);
    QCOMPARE(events[4].valLoss, 0.41);
    QCOMPARE(events[4].valAccuracy, 0.85); // val_accuracy, never the train accuracy
    QCOMPARE(events[5].step, 469 + 1);
    QCOMPARE(events[9].epoch, 2);
    QCOMPARE(events[9].valLoss, 0.37);
    // Keras 3: accuracy before loss, a bar of heavy lines, no validation.
    QCOMPARE(events[10].step, 2 * 469 + 50);
    QCOMPARE(events[10].loss, 0.3);
    QCOMPARE(events[11].step, 3 * 469);
    QCOMPARE(events[12].kind, MetricEventKind::Epoch);
    QCOMPARE(events[12].epoch, 3);
    QCOMPARE(events[12].loss, 0.29);
    QVERIFY(!MetricEvent::has(events[12].valLoss));
}

void TestPatternParser::kerasLogReadInParts()
{
    // The tracker reads on where it stopped: the "Epoch 2/2" line was in the part before.
    PatternParser parser;
    parser.setHeaderEpoch(2);
    const QList<MetricEvent> events =
        parser.parseLine("469/469 [==============================] - 3s 6ms/step - loss: 0.3600 - val_loss: 0.3700");
    QCOMPARE(events.size(), 2);
    QCOMPARE(events[0].step, 2 * 469);
    QCOMPARE(events[1].kind, MetricEventKind::Epoch);
    QCOMPARE(events[1].epoch, 2);
    QCOMPARE(events[1].valLoss, 0.37);
}

void TestPatternParser::torchdeckTrainerStdout()
{
    PatternParser parser;
    const QList<MetricEvent> events = parseFile(parser, "torchdeck-train.out");
    QCOMPARE(events.size(), 42);
    QCOMPARE(events[0].kind, MetricEventKind::Step);
    QCOMPARE(events[0].step, 1);
    QCOMPARE(events[0].lr, 0.001);
    QCOMPARE(events[20].kind, MetricEventKind::Epoch);
    QCOMPARE(events[20].epoch, 1);
    QCOMPARE(events[20].valLoss, 0.11);
    QCOMPARE(events[20].seconds, 8.31);
    QCOMPARE(events[21].step, 21);
}

void TestPatternParser::keyValueLog()
{
    PatternParser parser;
    const QList<MetricEvent> events = parseFile(parser, "keyvalue.log");
    QCOMPARE(events.size(), 6);
    QCOMPARE(events[5].step, 300);
    QCOMPARE(events[5].lr, 3e-4);
}

void TestPatternParser::customPatterns()
{
    PatternParser parser;
    const QString error =
        parser.setPatterns({{QStringLiteral("mine"), QStringLiteral(R"(it (?<step>\d+) L=(?<loss>[\d.]+))"), 1},
                            {QStringLiteral("val"), QStringLiteral(R"(ep(?<epoch>\d+) acc (?<accuracy>[\d.]+)%)"), 0}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(parser.patterns().size(), 2);
    QCOMPARE(parser.parse(u"epoch: 3/10, loss = 0.0421")->epoch, 3); // the general reader stays
    QCOMPARE(parser.parse(u"it 7 L=0.5")->step, 7);
    const auto e = parser.parse(u"ep0 acc 93.5%");
    QCOMPARE(e->kind, MetricEventKind::Epoch);
    QCOMPARE(e->epoch, 1);
    QCOMPARE(e->valAccuracy, 93.5);
    // A loss without any step or epoch is numbered in order of appearance, after the steps seen.
    QVERIFY(parser.setPatterns({{QStringLiteral("bare"), QStringLiteral(R"(L=(?<loss>[\d.]+))"), 1}}).isEmpty());
    QCOMPARE(parser.parse(u"L=0.4")->step, 8);
    QCOMPARE(parser.parse(u"L=0.3")->step, 9);
}

void TestPatternParser::invalidPatternsAreErrors_data()
{
    QTest::addColumn<QString>("regex");
    QTest::addColumn<QString>("message");
    QTest::addRow("syntax") << QStringLiteral("loss=(?<loss>[\\d.]+") << QStringLiteral("missing closing parenthesis");
    QTest::addRow("no group") << QStringLiteral("epoch \\d+") << QStringLiteral("captures no value");
    QTest::addRow("typo") << QStringLiteral("(?<los>\\d+)") << QStringLiteral("unknown group \"los\"");
}

void TestPatternParser::invalidPatternsAreErrors()
{
    QFETCH(QString, regex);
    QFETCH(QString, message);
    PatternParser parser;
    const QString error = parser.setPatterns({{QStringLiteral("p"), regex, 1}});
    QVERIFY2(error.contains(message), qPrintable(error));
    QCOMPARE(parser.patterns().size(), PatternParser::defaultPatterns().size()); // the old set stays
}

TORCHDECK_TEST_MAIN(TestPatternParser)
#include "tst_patternparser.moc"
