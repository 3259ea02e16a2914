// The frames and messages of the agent's socket: what one side writes the other reads back, a stream cut
// anywhere gives the same messages, and garbage is an error, never a crash or a huge allocation.
#include "core/agent/agentprotocol.h"
#include "testmain.h"

#include <QTest>
#include <QtEndian>

using namespace torchdeck;

class TestAgentProtocol : public QObject {
    Q_OBJECT
private slots:
    void messagesRoundTrip_data();
    void messagesRoundTrip();
    void aStreamCutAnywhereGivesTheSameMessages();
    void garbageIsAnError_data();
    void garbageIsAnError();
    void aFrameOverTheLimitFailsTheReader();
    void anotherVersionIsReadAsFarAsItsId();
};

void TestAgentProtocol::messagesRoundTrip_data()
{
    QTest::addColumn<AgentMessage>("message");
    QTest::addRow("request") << agentRequest(7, QStringLiteral("refresh"),
                                             {{QStringLiteral("cluster"), QStringLiteral("alpha")},
                                              {QStringLiteral("runs"), QCborArray{QStringLiteral("r1")}}});
    QTest::addRow("reply") << agentReply(7, QCborMap{{QStringLiteral("problem"), QString()}});
    QTest::addRow("error reply") << agentErrorReply(8, QStringLiteral("cannot connect to alpha: refused"));
    QTest::addRow("event") << agentEvent(QStringLiteral("data"), {{QStringLiteral("bytes"), QByteArray("a\0b", 3)}}, 9);
    QTest::addRow("news") << agentEvent(QStringLiteral("run"), {{QStringLiteral("run"), QStringLiteral("r1")}});
}

void TestAgentProtocol::messagesRoundTrip()
{
    QFETCH(AgentMessage, message);
    const QByteArray frame = encodeAgentFrame(message);
    QCOMPARE(qFromBigEndian<quint32>(frame.constData()), quint32(frame.size() - 4));
    AgentFrameReader reader;
    reader.append(frame);
    const std::optional<QByteArray> payload = reader.next();
    QVERIFY(payload);
    QVERIFY(!reader.next());
    QString error;
    const std::optional<AgentMessage> read = decodeAgentMessage(*payload, &error);
    QVERIFY2(read, qPrintable(error));
    QCOMPARE(int(read->kind), int(message.kind));
    QCOMPARE(read->id, message.id);
    QCOMPARE(read->op, message.op);
    QCOMPARE(read->args, message.args);
    QCOMPARE(read->ok, message.ok);
    QCOMPARE(read->error, message.error);
    QCOMPARE(read->result, message.result);
}

void TestAgentProtocol::aStreamCutAnywhereGivesTheSameMessages()
{
    QByteArray stream;
    for (int id = 1; id <= 5; ++id)
        stream += encodeAgentFrame(agentRequest(id, QStringLiteral("status")));
    for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
        AgentFrameReader reader;
        QList<qint64> ids;
        for (const QByteArray &part : {stream.left(cut), stream.mid(cut)}) {
            reader.append(part);
            while (const std::optional<QByteArray> payload = reader.next()) {
                QString error;
                ids.append(decodeAgentMessage(*payload, &error)->id);
            }
        }
        QCOMPARE(ids, (QList<qint64>{1, 2, 3, 4, 5}));
        QCOMPARE(reader.buffered(), 0);
    }
}

void TestAgentProtocol::garbageIsAnError_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::addColumn<QString>("error");
    QTest::addRow("not cbor") << QByteArray("\xff\xff\xff") << QStringLiteral("not a CBOR message");
    QTest::addRow("not a map") << QCborValue(42).toCbor() << QStringLiteral("a message is a CBOR map");
    QTest::addRow("no id") << QCborMap{{QStringLiteral("v"), kAgentProtocolVersion}}.toCborValue().toCbor()
                           << QStringLiteral("a message needs an integer version and id");
    QTest::addRow("negative id")
        << QCborMap{{QStringLiteral("v"), kAgentProtocolVersion}, {QStringLiteral("id"), -1}}.toCborValue().toCbor()
        << QStringLiteral("a message needs an integer version and id");
    QTest::addRow("unknown kind") << QCborMap{{QStringLiteral("v"), kAgentProtocolVersion},
                                              {QStringLiteral("id"), 1},
                                              {QStringLiteral("k"), QStringLiteral("x")}}
                                         .toCborValue()
                                         .toCbor()
                                  << QStringLiteral("unknown message kind");
    QTest::addRow("request without op") << QCborMap{{QStringLiteral("v"), kAgentProtocolVersion},
                                                    {QStringLiteral("id"), 1},
                                                    {QStringLiteral("k"), QStringLiteral("req")}}
                                               .toCborValue()
                                               .toCbor()
                                        << QStringLiteral("a request or event needs its name");
    QTest::addRow("arguments not a map") << QCborMap{{QStringLiteral("v"), kAgentProtocolVersion},
                                                     {QStringLiteral("id"), 1},
                                                     {QStringLiteral("k"), QStringLiteral("req")},
                                                     {QStringLiteral("op"), QStringLiteral("open")},
                                                     {QStringLiteral("a"), 3}}
                                                .toCborValue()
                                                .toCbor()
                                         << QStringLiteral("arguments are a map");
    QTest::addRow("reply without ok") << QCborMap{{QStringLiteral("v"), kAgentProtocolVersion},
                                                  {QStringLiteral("id"), 1},
                                                  {QStringLiteral("k"), QStringLiteral("rep")}}
                                             .toCborValue()
                                             .toCbor()
                                      << QStringLiteral("a reply needs ok");
    // A byte string that claims more bytes than there are: refused, not allocated.
    QTest::addRow("lying length") << QByteArray("\x5b\x00\x00\x00\x10\x00\x00\x00\x00", 9)
                                  << QStringLiteral("not a CBOR message");
}

void TestAgentProtocol::garbageIsAnError()
{
    QFETCH(QByteArray, payload);
    QFETCH(QString, error);
    QString said;
    QVERIFY(!decodeAgentMessage(payload, &said));
    QVERIFY2(said.startsWith(error), qPrintable(said));
}

void TestAgentProtocol::aFrameOverTheLimitFailsTheReader()
{
    AgentFrameReader reader;
    QByteArray header(4, Qt::Uninitialized);
    qToBigEndian(quint32(kMaxAgentFrameBytes + 1), header.data());
    reader.append(header + QByteArray(100, 'x'));
    QVERIFY(!reader.next());
    QVERIFY(reader.failed());
    QVERIFY2(reader.error().contains(QStringLiteral("over the limit")), qPrintable(reader.error()));
    reader.append(encodeAgentFrame(agentRequest(1, QStringLiteral("status"))));
    QVERIFY(!reader.next()); // the stream cannot be trusted again: the connection is closed
    QCOMPARE(reader.buffered(), 0);
}

void TestAgentProtocol::anotherVersionIsReadAsFarAsItsId()
{
    QString error;
    const QByteArray payload =
        QCborMap{{QStringLiteral("v"), 99}, {QStringLiteral("id"), 12}, {QStringLiteral("k"), QStringLiteral("new")}}
            .toCborValue()
            .toCbor();
    const std::optional<AgentMessage> read = decodeAgentMessage(payload, &error);
    QVERIFY2(read, qPrintable(error));
    QCOMPARE(read->version, 99);
    QCOMPARE(read->id, 12);
}

TORCHDECK_TEST_MAIN(TestAgentProtocol)
#include "tst_agentprotocol.moc"
