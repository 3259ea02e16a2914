// Tunnels through the sandbox's sshd (direct-tcpip) to a server of this test on loopback, where the sandbox's
// node lives: bytes both ways in order, several at once, a closed port refused in words, stop() closing the
// stream. torchdeck forward is tested end to end in forward_test.sh. A command on a pseudo-terminal (an interactive
// shell's stream) sees a terminal of the size asked, resized on the way, gets what is typed and says its exit status.
#include "remote/connection.h"
#include "sandboxconnection.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <memory>

using namespace torchdeck;
using namespace torchdeck::remote;

class TestTunnel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void bytesComeBackInOrder();
    void severalAtOnce();
    void aClosedPortIsRefusedInWords();
    void stopClosesTheStream();
    void aTerminalHasItsSizeInputAndExitStatus();

private:
    // A tunnel to the echo server; what comes back is appended to `received`.
    RemoteTunnel *echoTunnel(QByteArray *received);

    std::unique_ptr<Connection> m_connection;
    QTcpServer m_echo; // sends back what it gets
    int m_disconnected = 0;
};

void TestTunnel::initTestCase()
{
    if (!torchdeck::testing::sandboxRunning())
        QSKIP("the sandbox is not running (run through ctest, which starts it)");
    QString error;
    m_connection = torchdeck::testing::openSandboxConnection(&error);
    QVERIFY2(m_connection, qPrintable(error));
    QVERIFY(m_echo.listen(QHostAddress::LocalHost));
    connect(&m_echo, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_echo.nextPendingConnection()) {
            connect(socket, &QTcpSocket::readyRead, socket, [socket] { socket->write(socket->readAll()); });
            connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
                ++m_disconnected;
                socket->deleteLater();
            });
        }
    });
}

RemoteTunnel *TestTunnel::echoTunnel(QByteArray *received)
{
    RemoteTunnel *tunnel = m_connection->tunnel(QStringLiteral("127.0.0.1"), m_echo.serverPort());
    connect(tunnel, &RemoteTunnel::data, this, [received](const QByteArray &bytes) { received->append(bytes); });
    return tunnel;
}

void TestTunnel::bytesComeBackInOrder()
{
    QByteArray received;
    RemoteTunnel *tunnel = echoTunnel(&received);
    QSignalSpy opened(tunnel, &RemoteTunnel::opened);
    // More than a channel's window (libssh's default is 1.28 MB): written as the far end reads.
    QByteArray sent;
    for (int i = 0; sent.size() < 3'000'000; ++i)
        sent += QByteArray::number(i) + '\n';
    tunnel->write(sent.left(10));
    tunnel->write(sent.mid(10));
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), sent.size(), 30000);
    QCOMPARE(received, sent);
    QCOMPARE(opened.count(), 1);
    tunnel->stop();
}

void TestTunnel::severalAtOnce()
{
    constexpr int tunnels = 8;
    QList<QByteArray> received(tunnels);
    QList<QPointer<RemoteTunnel>> open;
    for (int i = 0; i < tunnels; ++i) {
        open.append(echoTunnel(&received[i]));
        open.last()->write(QByteArray("tunnel ") + QByteArray::number(i));
    }
    for (int i = 0; i < tunnels; ++i)
        QTRY_COMPARE_WITH_TIMEOUT(received.at(i), QByteArray("tunnel ") + QByteArray::number(i), 10000);
    for (const QPointer<RemoteTunnel> &tunnel : open)
        tunnel->stop();
}

void TestTunnel::aClosedPortIsRefusedInWords()
{
    QTcpServer closed; // a port that was free a moment ago, and is again
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close();
    RemoteTunnel *tunnel = m_connection->tunnel(QStringLiteral("127.0.0.1"), port);
    QSignalSpy opened(tunnel, &RemoteTunnel::opened);
    QSignalSpy closedSpy(tunnel, &RemoteTunnel::closed);
    QVERIFY(closedSpy.wait(15000));
    QCOMPARE(opened.count(), 0);
    const QString error = closedSpy.first().first().toString();
    qInfo().noquote() << "refused:" << error;
    QVERIFY2(error.contains(QStringLiteral("could not connect to 127.0.0.1:%1").arg(port)), qPrintable(error));
    // The refusal was the port's, not the connection's: it goes on.
    QCOMPARE(m_connection->state(), ConnectionState::Connected);
}

void TestTunnel::stopClosesTheStream()
{
    QByteArray received;
    RemoteTunnel *tunnel = echoTunnel(&received);
    tunnel->write("ping");
    QTRY_COMPARE_WITH_TIMEOUT(received, QByteArray("ping"), 10000);
    const int before = m_disconnected;
    tunnel->stop();
    QTRY_COMPARE_WITH_TIMEOUT(m_disconnected, before + 1, 10000);
}

void TestTunnel::aTerminalHasItsSizeInputAndExitStatus()
{
    RemoteTunnel *terminal = m_connection->terminal(
        QStringLiteral("read a; stty size; test -t 0 && echo tty; read b; stty size; echo \"got $a $b\"; exit 7"), 100,
        30);
    QByteArray received;
    connect(terminal, &RemoteTunnel::data, this, [&received](const QByteArray &bytes) { received.append(bytes); });
    QSignalSpy exited(terminal, &RemoteTunnel::exited);
    QSignalSpy closed(terminal, &RemoteTunnel::closed);
    QSignalSpy opened(terminal, &RemoteTunnel::opened);
    QVERIFY(opened.wait(10000));
    terminal->write("one\r");
    QTRY_VERIFY_WITH_TIMEOUT(received.contains("30 100"), 10000);
    QVERIFY(received.contains("tty"));
    terminal->resize(120, 40); // sent before what follows on the same channel
    terminal->write("two\r");
    QTRY_VERIFY_WITH_TIMEOUT(closed.size() == 1, 10000);
    QVERIFY2(received.contains("40 120"), received.constData());
    QVERIFY2(received.contains("got one two"), received.constData());
    QCOMPARE(exited.size(), 1);
    QCOMPARE(exited.constFirst().constFirst().toInt(), 7);
    QCOMPARE(closed.constFirst().constFirst().toString(), QString());
}

QTEST_GUILESS_MAIN(TestTunnel)
#include "tst_tunnel.moc"
