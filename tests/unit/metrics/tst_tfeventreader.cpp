#include "core/metrics/crc32c.h"
#include "core/metrics/scalarmapping.h"
#include "core/metrics/tfeventreader.h"
#include "testmain.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTest>
#include <QtEndian>
#include <algorithm>
#include <cstring>

using namespace torchdeck;
using namespace Qt::StringLiterals;

namespace {

template <typename To, typename From> To bitCast(From from)
{
    To to;
    std::memcpy(&to, &from, sizeof to);
    return to;
}

bool same(const QList<TfScalar> &a, const QList<TfScalar> &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const TfScalar &x, const TfScalar &y) {
        return x.tag == y.tag && x.step == y.step && x.wallTime == y.wallTime && x.value == y.value;
    });
}

// Protocol buffer encodings, to build the Events a reader meets.
QByteArray varint(quint64 value)
{
    QByteArray out;
    for (; value >= 0x80; value >>= 7)
        out += char((value & 0x7F) | 0x80);
    return out + char(value);
}
QByteArray key(int field, int type)
{
    return varint(quint64(field) << 3 | quint64(type));
}
QByteArray fixed32(quint32 bits)
{
    QByteArray out(4, '\0');
    qToLittleEndian(bits, out.data());
    return out;
}
QByteArray fixed64(quint64 bits)
{
    QByteArray out(8, '\0');
    qToLittleEndian(bits, out.data());
    return out;
}
QByteArray lengthField(int field, const QByteArray &data)
{
    return key(field, 2) + varint(quint64(data.size())) + data;
}
QByteArray floatField(int field, float value)
{
    return key(field, 5) + fixed32(bitCast<quint32>(value));
}
QByteArray doubleField(int field, double value)
{
    return key(field, 1) + fixed64(bitCast<quint64>(value));
}
QByteArray varintField(int field, quint64 value)
{
    return key(field, 0) + varint(value);
}
// Summary.Value with simple_value, as an entry of Summary.value.
QByteArray simpleValue(const QByteArray &tag, float value)
{
    return lengthField(1, lengthField(1, tag) + floatField(2, value));
}
QByteArray tensorValue(const QByteArray &tag, const QByteArray &tensor)
{
    return lengthField(1, lengthField(1, tag) + lengthField(8, tensor));
}
QByteArray eventProto(double wallTime, qint64 step, const QByteArray &summaryValues)
{
    return doubleField(1, wallTime) + varintField(2, quint64(step)) + lengthField(5, summaryValues);
}
QByteArray record(const QByteArray &data)
{
    const QByteArray length = fixed64(quint64(data.size()));
    return length + fixed32(maskedCrc32c(length)) + data + fixed32(maskedCrc32c(data));
}

QByteArray sampleStream()
{
    QByteArray stream = record(doubleField(1, 100.0) + lengthField(3, "brain.Event:2"));
    for (qint64 step = 1; step <= 4; ++step)
        stream += record(eventProto(100.0 + step, step, simpleValue("loss", 1.0f / float(step))));
    stream += record(eventProto(105.0, 4, simpleValue("val_loss", 0.5f) + simpleValue("accuracy", 0.75f)));
    return stream;
}

QList<TfScalar> readAll(const QByteArray &bytes, TfEventReader *reader)
{
    return reader->feed(bytes);
}

} // namespace

class TestTfEventReader : public QObject {
    Q_OBJECT
private slots:
    void values_data();
    void values();
    void splitAtEveryByte();
    void growingTail();
    void corruptDataCrcSkipsOneRecord();
    void corruptLengthStops_data();
    void corruptLengthStops();
    void tornTailIsNotConsumed();
    void hostileBytesNeverCrash();
    void fixtureFile();
};

void TestTfEventReader::values_data()
{
    QTest::addColumn<QByteArray>("data"); // one Event
    QTest::addColumn<QString>("tag");     // empty: no scalar
    QTest::addColumn<double>("value");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<bool>("malformed");
    const QByteArray dtFloat = varintField(1, 1);
    const QByteArray dtDouble = varintField(1, 2);
    const QByteArray dtString = varintField(1, 7);
    const QByteArray dim3 = lengthField(2, lengthField(2, varintField(1, 3)));
    const QByteArray dim1 = lengthField(2, lengthField(2, varintField(1, 1)));
    const QByteArray value = simpleValue("loss", 0.25f);

    QTest::addRow("simple_value") << eventProto(1, 7, value) << u"loss"_s << 0.25 << 7LL << false;
    QTest::addRow("negative step") << eventProto(1, -3, value) << u"loss"_s << 0.25 << -3LL << false;
    QTest::addRow("float_val") << eventProto(1, 2, tensorValue("t", dtFloat + lengthField(2, {}) + floatField(5, 1.5f)))
                               << u"t"_s << 1.5 << 2LL << false;
    QTest::addRow("float_val packed") << eventProto(1, 2,
                                                    tensorValue("t", dtFloat + lengthField(5, fixed32(0x40200000))))
                                      << u"t"_s << 2.5 << 2LL << false;
    QTest::addRow("double_val") << eventProto(1, 2, tensorValue("t", dtDouble + doubleField(6, 0.1))) << u"t"_s << 0.1
                                << 2LL << false;
    QTest::addRow("double_val packed")
        << eventProto(1, 2, tensorValue("t", dtDouble + lengthField(6, fixed64(bitCast<quint64>(0.2))))) << u"t"_s
        << 0.2 << 2LL << false;
    QTest::addRow("tensor_content float")
        << eventProto(1, 2, tensorValue("t", dtFloat + lengthField(4, fixed32(bitCast<quint32>(3.5f))))) << u"t"_s
        << 3.5 << 2LL << false;
    QTest::addRow("tensor_content double shape [1]")
        << eventProto(1, 2, tensorValue("t", dtDouble + dim1 + lengthField(4, fixed64(bitCast<quint64>(0.3)))))
        << u"t"_s << 0.3 << 2LL << false;
    QTest::addRow("histogram-like tensor")
        << eventProto(1, 2, tensorValue("h", dtFloat + dim3 + lengthField(4, QByteArray(12, 'x')))) << QString() << 0.0
        << 2LL << false;
    QTest::addRow("string tensor") << eventProto(1, 2, tensorValue("s", dtString + lengthField(8, "text"))) << QString()
                                   << 0.0 << 2LL << false;
    QTest::addRow("image") << eventProto(1, 2, lengthField(1, lengthField(1, "img") + lengthField(4, "png")))
                           << QString() << 0.0 << 2LL << false;
    QTest::addRow("unknown fields") << varintField(99, 5) + eventProto(1, 4, value) + lengthField(6, "log message")
                                    << u"loss"_s << 0.25 << 4LL << false;
    QTest::addRow("file_version only") << doubleField(1, 1) + lengthField(3, "brain.Event:2") << QString() << 0.0 << 0LL
                                       << false;
    QTest::addRow("truncated varint") << eventProto(1, 2, value) + QByteArray("\x10\xff", 2) << QString() << 0.0 << 0LL
                                      << true;
    QTest::addRow("length past the end") << eventProto(1, 2, value).chopped(1) << QString() << 0.0 << 0LL << true;
    QTest::addRow("group wire type") << key(7, 3) + eventProto(1, 2, value) << QString() << 0.0 << 0LL << true;
    QTest::addRow("field 0") << key(0, 0) + varint(1) << QString() << 0.0 << 0LL << true;
    QTest::addRow("odd packed floats") << eventProto(1, 2, tensorValue("t", lengthField(5, "abc"))) << QString() << 0.0
                                       << 0LL << true;
    QTest::addRow("varint of 11 bytes") << QByteArray("\x10") + QByteArray(10, '\xff') + '\x01' << QString() << 0.0
                                        << 0LL << true;
}

void TestTfEventReader::values()
{
    QFETCH(QByteArray, data);
    QFETCH(QString, tag);
    QFETCH(double, value);
    QFETCH(qint64, step);
    QFETCH(bool, malformed);
    TfEventReader reader;
    const QByteArray bytes = record(data);
    const QList<TfScalar> scalars = reader.feed(bytes);
    QCOMPARE(reader.offset(), bytes.size());
    QCOMPARE(reader.malformed(), malformed ? 1 : 0);
    QCOMPARE(reader.corrupt(), 0);
    QCOMPARE(scalars.size(), tag.isEmpty() ? 0 : 1);
    if (!tag.isEmpty()) {
        QCOMPARE(scalars[0].tag, tag);
        QCOMPARE(scalars[0].value, value);
        QCOMPARE(scalars[0].step, step);
        QCOMPARE(scalars[0].wallTime, 1.0);
    }
}

void TestTfEventReader::splitAtEveryByte()
{
    const QByteArray stream = sampleStream();
    TfEventReader whole;
    const QList<TfScalar> expected = readAll(stream, &whole);
    QCOMPARE(expected.size(), 6);
    QCOMPARE(whole.fileVersion(), u"brain.Event:2");
    for (qsizetype split = 0; split <= stream.size(); ++split) {
        TfEventReader reader;
        QList<TfScalar> scalars = reader.feed(QByteArrayView(stream).first(split));
        QVERIFY(reader.offset() <= split);
        scalars += reader.feed(QByteArrayView(stream).sliced(reader.offset()));
        QVERIFY2(same(scalars, expected), qPrintable(QString::number(split)));
        QCOMPARE(reader.offset(), stream.size());
        QCOMPARE(reader.records(), 6);
    }
}

void TestTfEventReader::growingTail()
{
    // A tail that sees the file one byte longer each time, reading from where the reader stopped.
    const QByteArray stream = sampleStream();
    TfEventReader reader(1000); // offsets are the file's: the stream starts at byte 1000 here
    QList<TfScalar> scalars;
    for (qsizetype end = 0; end <= stream.size(); ++end)
        scalars += reader.feed(QByteArrayView(stream).first(end).sliced(reader.offset() - 1000));
    QCOMPARE(scalars.size(), 6);
    QCOMPARE(reader.offset(), 1000 + stream.size());
    QCOMPARE(scalars[5].tag, u"accuracy");
}

void TestTfEventReader::corruptDataCrcSkipsOneRecord()
{
    const QByteArray first = record(eventProto(1, 1, simpleValue("loss", 1)));
    QByteArray second = record(eventProto(2, 2, simpleValue("loss", 2)));
    const QByteArray third = record(eventProto(3, 3, simpleValue("loss", 3)));
    second[second.size() - 6] = char(second[second.size() - 6] ^ 0x40); // a bit of the value
    TfEventReader reader;
    const QList<TfScalar> scalars = reader.feed(QByteArray(first + second + third));
    QCOMPARE(scalars.size(), 2);
    QCOMPARE(scalars[0].step, 1);
    QCOMPARE(scalars[1].step, 3);
    QCOMPARE(reader.corrupt(), 1);
    QCOMPARE(reader.records(), 2);
    QVERIFY(reader.problem().isEmpty());
}

void TestTfEventReader::corruptLengthStops_data()
{
    QTest::addColumn<QByteArray>("bad");
    QByteArray flipped = record(eventProto(2, 2, simpleValue("loss", 2)));
    flipped[1] = '\x01';
    QTest::addRow("length crc") << flipped;
    const QByteArray huge = fixed64(quint64(1) << 40);
    QTest::addRow("absurd length") << huge + fixed32(maskedCrc32c(huge)) + QByteArray(64, 'x');
    const QByteArray over = fixed64(TfEventReader::kMaxRecordBytes + 1);
    QTest::addRow("just over the limit") << over + fixed32(maskedCrc32c(over));
}

void TestTfEventReader::corruptLengthStops()
{
    QFETCH(QByteArray, bad);
    const QByteArray first = record(eventProto(1, 1, simpleValue("loss", 1)));
    const QByteArray after = record(eventProto(3, 3, simpleValue("loss", 3)));
    TfEventReader reader;
    QCOMPARE(reader.feed(QByteArray(first + bad + after)).size(), 1);
    QCOMPARE(reader.offset(), first.size()); // before the record that cannot be framed
    QCOMPARE(reader.corrupt(), 1);
    QVERIFY(reader.problem().contains(QString::number(first.size())));
    QVERIFY(reader.feed(QByteArrayView(after)).isEmpty()); // stopped for good
    QCOMPARE(reader.offset(), first.size());
}

void TestTfEventReader::tornTailIsNotConsumed()
{
    const QByteArray whole = record(eventProto(1, 1, simpleValue("loss", 1)));
    const QByteArray next = record(eventProto(2, 2, simpleValue("loss", 2)));
    for (const qsizetype torn : {qsizetype(1), qsizetype(11), qsizetype(12), next.size() - 1}) {
        TfEventReader reader;
        QCOMPARE(reader.feed(QByteArray(whole + next.first(torn))).size(), 1);
        QCOMPARE(reader.offset(), whole.size());
        QCOMPARE(reader.corrupt(), 0);
        QVERIFY(reader.problem().isEmpty());
        const QList<TfScalar> rest = reader.feed(next);
        QCOMPARE(rest.size(), 1);
        QCOMPARE(rest[0].value, 2.0);
    }
}

void TestTfEventReader::hostileBytesNeverCrash()
{
    QRandomGenerator random(20240601);
    const QByteArray good = eventProto(1, 5, simpleValue("loss", 1) + tensorValue("t", lengthField(5, fixed32(1))));
    auto randomBytes = [&random](qsizetype size) {
        QByteArray bytes(size, '\0');
        for (char &c : bytes)
            c = char(random.bounded(256));
        return bytes;
    };
    for (int round = 0; round < 3000; ++round) {
        QByteArray stream;
        switch (round % 3) {
        case 0: // noise, framed or not
            stream = randomBytes(random.bounded(200));
            break;
        case 1: // noise behind valid framing: the Event parser meets it
            stream = record(randomBytes(random.bounded(200)));
            break;
        case 2: { // a valid Event with some bytes changed or cut, validly framed
            QByteArray mutated = good;
            for (int i = 0; i < 1 + random.bounded(4); ++i)
                mutated[random.bounded(mutated.size())] = char(random.bounded(256));
            stream = record(mutated.first(random.bounded(mutated.size() + 1)));
            break;
        }
        }
        TfEventReader reader;
        for (const TfScalar &scalar : reader.feed(stream))
            QVERIFY(!scalar.tag.isNull());
        QVERIFY(reader.offset() >= 0 && reader.offset() <= stream.size());
    }
}

void TestTfEventReader::fixtureFile()
{
    // Written by tests/data/scripts/tfevents_writer.py: 3 epochs of 4 steps; loss, lr, grad_norm by step,
    // val_loss and accuracy by epoch.
    QFile file(QStringLiteral(TORCHDECK_TEST_DATA "/metrics/scalars.tfevents"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    TfEventReader reader;
    const QList<TfScalar> scalars = reader.feed(bytes);
    QCOMPARE(reader.offset(), bytes.size());
    QCOMPARE(reader.corrupt(), 0);
    QCOMPARE(reader.malformed(), 0);
    QCOMPARE(reader.records(), 1 + 12 * 3 + 3 * 2);
    QCOMPARE(reader.fileVersion(), u"brain.Event:2");
    QCOMPARE(scalars.size(), 12 * 3 + 3 * 2);
    QCOMPARE(scalars[0].tag, u"loss");
    QCOMPARE(scalars[0].step, 1);
    QCOMPARE(scalars[0].wallTime, 1700000001.0);
    QCOMPARE(scalars[0].value, 2.0);

    const QList<MetricEvent> events = tensorBoardEvents(scalars);
    QCOMPARE(events.size(), 12 + 3);
    const MetricEvent &step5 = events[5]; // after epoch 1's 4 steps and its epoch event
    QCOMPARE(step5.kind, MetricEventKind::Step);
    QCOMPARE(step5.step, 5);
    QCOMPARE(step5.loss, double(2.0f / 5));
    QCOMPARE(step5.lr, double(0.05f)); // simple_value is a float
    QCOMPARE(step5.extras, (QList<NamedValue>{{u"grad_norm"_s, 1.0 + 5.0 / 8}}));
    QCOMPARE(step5.epoch, kNoCount);
    const MetricEvent &epoch2 = events[9];
    QCOMPARE(epoch2.kind, MetricEventKind::Epoch);
    QCOMPARE(epoch2.epoch, 2);
    QCOMPARE(epoch2.step, kNoCount);
    QCOMPARE(epoch2.valLoss, 0.75);
    QCOMPARE(epoch2.valAccuracy, 0.75);
    QCOMPARE(epoch2.time, 1700000008.5);
}

TORCHDECK_TEST_MAIN(TestTfEventReader)
#include "tst_tfeventreader.moc"
