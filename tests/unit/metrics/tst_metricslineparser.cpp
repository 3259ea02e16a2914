#include "core/metrics/metricslineparser.h"
#include "testmain.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <cmath>

using namespace torchdeck;

class TestMetricsLineParser : public QObject {
    Q_OBJECT
private slots:
    void status_data();
    void status();
    void stepFields();
    void startWithResume();
    void startWithoutResume();
    void epochWithNullAccuracy();
    void checkpointAndStop();
    void integralDoublesAreCounts();
    void agreesWithQJsonOnTrainerFiles();
    void reusedParserKeepsNoState();
};

void TestMetricsLineParser::status_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<MetricsLineStatus>("status");
    using S = MetricsLineStatus;
    QTest::addRow("step") << QByteArray(R"({"schema":1,"event":"step","time":1.5,"step":3,"loss":0.2})") << S::Event;
    QTest::addRow("v key") << QByteArray(R"({"v":1,"event":"step","time":1.5,"step":3,"loss":0.2})") << S::Event;
    QTest::addRow("empty") << QByteArray() << S::Blank;
    QTest::addRow("spaces") << QByteArray(" \t ") << S::Blank;
    QTest::addRow("unknown event") << QByteArray(R"({"schema":1,"event":"grad","time":1})") << S::UnknownEvent;
    QTest::addRow("future version") << QByteArray(R"({"schema":7,"event":"step","x":[{}]})") << S::FutureVersion;
    QTest::addRow("not json") << QByteArray("loss = 0.3") << S::Malformed;
    QTest::addRow("truncated") << QByteArray(R"({"schema":1,"event":"step","step":3,"lo)") << S::Malformed;
    QTest::addRow("array") << QByteArray("[1]") << S::Malformed;
    QTest::addRow("number") << QByteArray("42") << S::Malformed;
    QTest::addRow("no version") << QByteArray(R"({"event":"step","step":3})") << S::Malformed;
    QTest::addRow("version 0") << QByteArray(R"({"schema":0,"event":"step","step":3})") << S::Malformed;
    QTest::addRow("version string") << QByteArray(R"({"schema":"1","event":"step","step":3})") << S::Malformed;
    QTest::addRow("no event") << QByteArray(R"({"schema":1,"step":3})") << S::Malformed;
    QTest::addRow("event not string") << QByteArray(R"({"schema":1,"event":5})") << S::Malformed;
    QTest::addRow("step without step") << QByteArray(R"({"schema":1,"event":"step","loss":1})") << S::Malformed;
    QTest::addRow("epoch without epoch") << QByteArray(R"({"schema":1,"event":"epoch","val_loss":1})") << S::Malformed;
    QTest::addRow("loss is text") << QByteArray(R"({"schema":1,"event":"step","step":1,"loss":"x"})") << S::Malformed;
    QTest::addRow("fractional step") << QByteArray(R"({"schema":1,"event":"step","step":1.5})") << S::Malformed;
    QTest::addRow("huge step") << QByteArray(R"({"schema":1,"event":"step","step":18446744073709551615})")
                               << S::Malformed;
    QTest::addRow("trailing text") << QByteArray(R"({"schema":1,"event":"step","step":1} x)") << S::Malformed;
    QTest::addRow("two objects") << QByteArray(R"({"schema":1,"event":"step","step":1}{})") << S::Malformed;
    QTest::addRow("trailing spaces") << QByteArray("{\"schema\":1,\"event\":\"step\",\"step\":1}  \r") << S::Event;
    QTest::addRow("invalid utf-8") << QByteArray("{\"schema\":1,\"event\":\"stop\",\"message\":\"\xc3\x28\"}")
                                   << S::Malformed;
    static const char withNul[] = "{\"schema\":1,\0\"event\":\"stop\"}";
    QTest::addRow("nul byte") << QByteArray(withNul, sizeof withNul - 1) << S::Malformed;
    QTest::addRow("unknown fields skipped")
        << QByteArray(R"({"schema":1,"event":"step","extra":{"a":[1,{"b":null}]},"step":9,"more":"x"})") << S::Event;
}

void TestMetricsLineParser::status()
{
    QFETCH(QByteArray, line);
    QFETCH(MetricsLineStatus, status);
    const ParsedMetricsLine parsed = parseMetricsLine(line);
    QCOMPARE(parsed.status, status);
    QCOMPARE(parsed.error.isEmpty(),
             status != MetricsLineStatus::Malformed && status != MetricsLineStatus::UnknownEvent);
}

void TestMetricsLineParser::stepFields()
{
    const auto p =
        parseMetricsLine(R"({"schema":1,"event":"step","time":1717171717.125,"epoch":2,"step":42,)"
                         R"("epoch_step":22,"steps_per_epoch":20,"loss":0.0421,"lr":1e-3,"samples_per_s":812.5})");
    QCOMPARE(p.status, MetricsLineStatus::Event);
    const MetricEvent &e = p.event;
    QCOMPARE(e.kind, MetricEventKind::Step);
    QCOMPARE(e.schema, 1);
    QCOMPARE(e.time, 1717171717.125);
    QCOMPARE(e.epoch, 2);
    QCOMPARE(e.step, 42);
    QCOMPARE(e.epochStep, 22);
    QCOMPARE(e.stepsPerEpoch, 20);
    QCOMPARE(e.loss, 0.0421);
    QCOMPARE(e.lr, 0.001);
    QCOMPARE(e.samplesPerSecond, 812.5);
    QVERIFY(std::isnan(e.valLoss));
}

void TestMetricsLineParser::startWithResume()
{
    QFile f(QStringLiteral(TORCHDECK_TEST_DATA "/metrics/attempt2.jsonl"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto p = parseMetricsLine(f.readLine());
    QCOMPARE(p.status, MetricsLineStatus::Event);
    QCOMPARE(p.event.kind, MetricEventKind::Start);
    QCOMPARE(p.event.worldSize, 2);
    QCOMPARE(p.event.model, QStringLiteral("ae"));
    QCOMPARE(p.event.dataset, QStringLiteral("fashion-mnist"));
    QCOMPARE(p.event.epochs, 3);
    QCOMPARE(p.event.stepsPerEpoch, 20);
    QVERIFY(p.event.resumed);
    QCOMPARE(p.event.resumePath, QStringLiteral("/scratch/u/run/ckpt/ckpt-step000020.pt"));
    QCOMPARE(p.event.resumeEpoch, 1);
    QCOMPARE(p.event.resumeStep, 20);
    QCOMPARE(p.event.resumeSkipped, 0);
    const auto fellBack = parseMetricsLine(
        R"({"schema":1,"event":"start","time":1,"resume":{"path":"/c/ckpt-10.pt","epoch":1,"step":10,"skipped":2}})");
    QCOMPARE(fellBack.event.resumeSkipped, 2); // two newer checkpoints were torn
}

void TestMetricsLineParser::startWithoutResume()
{
    const auto p = parseMetricsLine(R"({"schema":1,"event":"start","time":1,"resume":null,"config":{"a":[1]}})");
    QCOMPARE(p.status, MetricsLineStatus::Event);
    QVERIFY(!p.event.resumed);
    QCOMPARE(p.event.resumeStep, -1);
}

void TestMetricsLineParser::epochWithNullAccuracy()
{
    const auto p = parseMetricsLine(R"({"schema":1,"event":"epoch","time":1,"epoch":3,"epochs":10,"step":60,)"
                                    R"("train_loss":0.05,"val_loss":0.06,"val_accuracy":null,"seconds":7.95})");
    QCOMPARE(p.status, MetricsLineStatus::Event);
    QCOMPARE(p.event.kind, MetricEventKind::Epoch);
    QCOMPARE(p.event.epoch, 3);
    QCOMPARE(p.event.epochs, 10);
    QCOMPARE(p.event.loss, 0.05);
    QCOMPARE(p.event.valLoss, 0.06);
    QVERIFY(std::isnan(p.event.valAccuracy));
    QCOMPARE(p.event.seconds, 7.95);
}

void TestMetricsLineParser::checkpointAndStop()
{
    auto p = parseMetricsLine(R"({"schema":1,"event":"checkpoint","time":2,"path":"/s/c \"1\".pt","epoch":1,)"
                              R"("step":20,"bytes":2421771,"seconds":0.084,"reason":"signal"})");
    QCOMPARE(p.event.kind, MetricEventKind::Checkpoint);
    QCOMPARE(p.event.path, QStringLiteral("/s/c \"1\".pt"));
    QCOMPARE(p.event.bytes, 2421771);
    QCOMPARE(p.event.reason, QStringLiteral("signal"));
    p = parseMetricsLine(R"({"schema":1,"event":"stop","time":3,"reason":"signal","exit_code":3,"step":27,)"
                         R"("signal":"SIGUSR2","message":"wall time — requeue"})");
    QCOMPARE(p.event.kind, MetricEventKind::Stop);
    QCOMPARE(p.event.exitCode, 3);
    QCOMPARE(p.event.step, 27);
    QCOMPARE(p.event.signal, QStringLiteral("SIGUSR2"));
    QCOMPARE(p.event.message, QStringLiteral("wall time — requeue"));
}

void TestMetricsLineParser::integralDoublesAreCounts()
{
    const auto p = parseMetricsLine(R"({"schema":1.0,"event":"step","step":4.0,"epoch":1e0,"loss":1})");
    QCOMPARE(p.status, MetricsLineStatus::Event);
    QCOMPARE(p.event.step, 4);
    QCOMPARE(p.event.epoch, 1);
    QCOMPARE(p.event.loss, 1.0);
}

// The same numbers as Qt's own JSON parser, on every line the trainer wrote.
void TestMetricsLineParser::agreesWithQJsonOnTrainerFiles()
{
    int compared = 0;
    for (const char *name : {"attempt1.jsonl", "attempt2.jsonl"}) {
        QFile f(QStringLiteral(TORCHDECK_TEST_DATA "/metrics/") + QLatin1StringView(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        for (const QByteArray &line : lines) {
            const QJsonDocument doc = QJsonDocument::fromJson(line);
            const auto p = parseMetricsLine(line);
            if (!doc.isObject()) {
                QVERIFY(p.status != MetricsLineStatus::Event);
                continue;
            }
            const QJsonObject o = doc.object();
            QCOMPARE(p.status, MetricsLineStatus::Event);
            QCOMPARE(metricEventName(p.event.kind), o.value(u"event").toString());
            QCOMPARE(p.event.time, o.value(u"time").toDouble());
            if (o.contains(u"step"))
                QCOMPARE(p.event.step, o.value(u"step").toInteger());
            if (o.contains(u"loss"))
                QCOMPARE(p.event.loss, o.value(u"loss").toDouble());
            if (o.contains(u"val_loss"))
                QCOMPARE(p.event.valLoss, o.value(u"val_loss").toDouble());
            ++compared;
        }
    }
    QCOMPARE(compared, 30 + 46); // attempt1.jsonl ends with a torn line
}

void TestMetricsLineParser::reusedParserKeepsNoState()
{
    MetricsLineParser parser;
    QCOMPARE(parser.parse("garbage").status, MetricsLineStatus::Malformed);
    const auto p = parser.parse(R"({"schema":1,"event":"stop","reason":"done","exit_code":0})");
    QCOMPARE(p.status, MetricsLineStatus::Event);
    QCOMPARE(p.event.reason, QStringLiteral("done"));
    const auto q = parser.parse(R"({"schema":1,"event":"step","step":1})");
    QVERIFY(q.event.reason.isEmpty());
    QVERIFY(std::isnan(q.event.loss));
}

TORCHDECK_TEST_MAIN(TestMetricsLineParser)
#include "tst_metricslineparser.moc"
