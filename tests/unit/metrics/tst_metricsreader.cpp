#include "core/metrics/metricsreader.h"
#include "testmain.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTest>

using namespace torchdeck;

namespace {
QByteArray sample(const char *name)
{
    QFile f(QStringLiteral(TORCHDECK_TEST_DATA "/metrics/") + QLatin1StringView(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
} // namespace

class TestMetricsReader : public QObject {
    Q_OBJECT
private slots:
    void countsWhatItSkips();
    void keepsTheLatestMalformedLines();
    void tornLineWaitsThenFinishes();
    void anEventGluedToATornLineIsKept();
    void smallChunksGiveTheSameEvents();
    void logPatternsMode();
    void garbageNeverCrashesAndIsCounted();
};

void TestMetricsReader::countsWhatItSkips()
{
    MetricsReader reader;
    const QList<MetricEvent> events = reader.feed(sample("malformed.jsonl"));
    QCOMPARE(events.size(), 3);
    const IngestCounts &c = reader.counts();
    QCOMPARE(c.lines, 16);
    QCOMPARE(c.events, 3);
    QCOMPARE(c.blank, 2);
    QCOMPARE(c.unknownEvents, 1);
    QCOMPARE(c.futureVersions, 1);
    QCOMPARE(c.malformed, 9);
    QCOMPARE(events[1].step, 4); // the CRLF line, loss null
    QVERIFY(std::isnan(events[1].loss));
    QCOMPARE(events[2].kind, MetricEventKind::Epoch);
    QCOMPARE(events[2].valAccuracy, 0.81);
}

void TestMetricsReader::keepsTheLatestMalformedLines()
{
    const QByteArray text = sample("malformed.jsonl");
    MetricsReader reader;
    reader.feed(text);
    const QList<MalformedLine> &bad = reader.malformedLines();
    QCOMPARE(bad.size(), 9);
    QCOMPARE(bad.first().excerpt, QByteArray("this is not json"));
    QCOMPARE(bad.first().offset, text.indexOf("this is not json"));
    QVERIFY(!bad.first().error.isEmpty());

    QByteArray many;
    for (int i = 0; i < 50; ++i)
        many += "bad " + QByteArray::number(i) + '\n';
    reader.feed(many);
    QCOMPARE(reader.malformedLines().size(), MetricsReader::kKeptMalformed);
    QCOMPARE(reader.malformedLines().last().excerpt, QByteArray("bad 49"));
    QCOMPARE(reader.counts().malformed, 59);
}

void TestMetricsReader::tornLineWaitsThenFinishes()
{
    const QByteArray text = sample("attempt1.jsonl");
    MetricsReader reader(MetricsReader::Format::JsonLines, 0);
    QCOMPARE(reader.feed(text).size(), 30);
    QCOMPARE(reader.offset(), text.lastIndexOf('\n') + 1);
    QCOMPARE(reader.counts().malformed, 0);
    // The job is over and the line never got its newline: it is read as it is, and is broken.
    QVERIFY(reader.finish().isEmpty());
    QCOMPARE(reader.counts().malformed, 1);
    QCOMPARE(reader.offset(), text.size());
}

// The job was killed mid-line and requeued; its rerun appended to the same file (a trainer older than this
// one, or a user's script, did not end the torn line first): the first new event is not lost with the fragment.
void TestMetricsReader::anEventGluedToATornLineIsKept()
{
    MetricsReader reader(MetricsReader::Format::JsonLines, 0);
    const QList<MetricEvent> events =
        reader.feed("{\"schema\":1,\"event\":\"step\",\"ti{\"schema\":1,\"event\":\"epoch\",\"time\":2.5,\"epoch\":3,"
                    "\"loss\":0.25,\"seconds\":4}\n");
    QCOMPARE(events.size(), 1);
    QCOMPARE(events.first().kind, MetricEventKind::Epoch);
    QCOMPARE(events.first().epoch, 3);
    QCOMPARE(reader.counts().malformed, 0); // the line counts once: as the event it ends with
}

void TestMetricsReader::smallChunksGiveTheSameEvents()
{
    const QByteArray text = sample("attempt2.jsonl");
    MetricsReader whole;
    const QList<MetricEvent> expected = whole.feed(text);
    MetricsReader pieces;
    QList<MetricEvent> got;
    for (qsizetype pos = 0; pos < text.size(); pos += 13)
        got += pieces.feed(QByteArrayView(text).sliced(pos, qMin<qsizetype>(13, text.size() - pos)));
    QCOMPARE(got.size(), expected.size());
    for (qsizetype i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].kind, expected[i].kind);
        QCOMPARE(got[i].step, expected[i].step);
    }
    QCOMPARE(pieces.offset(), text.size());
}

void TestMetricsReader::logPatternsMode()
{
    MetricsReader reader(MetricsReader::Format::LogPatterns);
    const QList<MetricEvent> events = reader.feed(sample("../logs/tutorial.log"));
    QCOMPARE(events.size(), 5);
    QCOMPARE(reader.counts().unmatched, 6); // the file's 2-line header, 3 lines before the epochs, 1 after
    QCOMPARE(reader.counts().malformed, 0);
}

// Mutated trainer lines and random bytes: every line lands in exactly one count, nothing crashes.
void TestMetricsReader::garbageNeverCrashesAndIsCounted()
{
    const QByteArray text = sample("attempt2.jsonl");
    QRandomGenerator rng(20240601);
    QByteArray input;
    for (int i = 0; i < 3000; ++i) {
        QByteArray line = text.mid(rng.bounded(text.size() - 200), 200);
        const int edits = rng.bounded(0, 6);
        for (int e = 0; e < edits; ++e)
            line[rng.bounded(line.size())] = static_cast<char>(rng.bounded(256));
        input += line + '\n';
        const QList<QByteArray> lines = text.split('\n');
        QByteArray whole = lines[rng.bounded(lines.size())];
        if (!whole.isEmpty() && rng.bounded(2) == 0)
            whole[rng.bounded(whole.size())] = static_cast<char>(rng.bounded(256));
        input += whole + '\n';
    }
    for (const bool format : {false, true}) {
        MetricsReader reader(format ? MetricsReader::Format::LogPatterns : MetricsReader::Format::JsonLines);
        const QList<MetricEvent> events = reader.feed(input);
        reader.finish();
        const IngestCounts &c = reader.counts();
        if (format) {
            QVERIFY(c.lines >= 6000);
            continue;
        }
        QCOMPARE(c.lines, c.events + c.blank + c.unknownEvents + c.futureVersions + c.malformed);
        QCOMPARE(c.events, events.size());
        QVERIFY(c.malformed > 1000);
        QVERIFY(c.events > 500);
    }
}

TORCHDECK_TEST_MAIN(TestMetricsReader)
#include "tst_metricsreader.moc"
