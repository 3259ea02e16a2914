#include "core/agent/portforward.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestPortForward : public QObject {
    Q_OBJECT
private slots:
    void ports_data();
    void ports();
    void roundTrip();
    void badFieldsAreRefused_data();
    void badFieldsAreRefused();
};

void TestPortForward::ports_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("port"); // 0: refused
    QTest::addRow("http") << QStringLiteral("8000") << 8000;
    QTest::addRow("lowest") << QStringLiteral("1") << 1;
    QTest::addRow("highest") << QStringLiteral("65535") << 65535;
    QTest::addRow("leading zero") << QStringLiteral("080") << 80;
    QTest::addRow("zero") << QStringLiteral("0") << 0;
    QTest::addRow("too high") << QStringLiteral("65536") << 0;
    QTest::addRow("too long") << QStringLiteral("000080") << 0;
    QTest::addRow("empty") << QString() << 0;
    QTest::addRow("sign") << QStringLiteral("+80") << 0;
    QTest::addRow("negative") << QStringLiteral("-1") << 0;
    QTest::addRow("space") << QStringLiteral(" 80") << 0;
    QTest::addRow("host:port") << QStringLiteral("node1:80") << 0;
    QTest::addRow("arabic-indic digits") << QStringLiteral("\u0668\u0660") << 0;
}

void TestPortForward::ports()
{
    QFETCH(QString, text);
    QFETCH(int, port);
    QCOMPARE(parsePort(text).value_or(0), port);
}

void TestPortForward::roundTrip()
{
    PortForward forward;
    forward.cluster = QStringLiteral("torchdeck-sandbox");
    forward.runId = QStringLiteral("0123456789abcdef");
    forward.node = QStringLiteral("node1");
    forward.address = QStringLiteral("127.0.0.1");
    forward.remotePort = 8000;
    forward.localPort = 18000;
    forward.connections = 2;
    forward.served = 7;
    forward.lastError = QStringLiteral("refused");
    QString error;
    const std::optional<PortForward> back = portForwardFromCbor(portForwardToCbor(forward), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->cluster, forward.cluster);
    QCOMPARE(back->runId, forward.runId);
    QCOMPARE(back->node, forward.node);
    QCOMPARE(back->address, forward.address);
    QCOMPARE(back->remotePort, 8000);
    QCOMPARE(back->localPort, 18000);
    QCOMPARE(back->connections, 2);
    QCOMPARE(back->served, 7);
    QCOMPARE(back->lastError, forward.lastError);
    QCOMPARE(back->url(), QStringLiteral("http://localhost:18000/"));
}

void TestPortForward::badFieldsAreRefused_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QCborValue>("value");
    QTest::addRow("port 0") << QStringLiteral("remote_port") << QCborValue(0);
    QTest::addRow("port too high") << QStringLiteral("local_port") << QCborValue(70000);
    QTest::addRow("port as text") << QStringLiteral("local_port") << QCborValue(QStringLiteral("80"));
    QTest::addRow("no run") << QStringLiteral("run") << QCborValue();
    QTest::addRow("negative count") << QStringLiteral("connections") << QCborValue(-1);
}

void TestPortForward::badFieldsAreRefused()
{
    QFETCH(QString, key);
    QFETCH(QCborValue, value);
    PortForward forward;
    forward.cluster = QStringLiteral("c");
    forward.runId = QStringLiteral("r");
    forward.remotePort = 1;
    forward.localPort = 2;
    QCborMap map = portForwardToCbor(forward);
    if (value.isUndefined())
        map.remove(key);
    else
        map.insert(key, value);
    QString error;
    QVERIFY(!portForwardFromCbor(map, &error));
    QVERIFY2(error.contains(key), qPrintable(error));
}

TORCHDECK_TEST_MAIN(TestPortForward)
#include "tst_portforward.moc"
