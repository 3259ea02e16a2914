// The sandbox reached through a jump host (ssh config "ProxyJump"), as clusters behind a gateway are:
// the path goes through the jump sshd (its log records the forwarding), and a jump that cannot be passed
// fails at once with the jump's own reason.
#include "authsshd.h"
#include "remote/connection.h"
#include "remotewait.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::remote;
using namespace torchdeck::testing;

namespace {
constexpr int connectTimeoutMs = 20000;
constexpr qint64 failureMs = 10000;
const QString viaJump = QStringLiteral("torchdeck-sandbox-via-jump");
} // namespace

class TestProxyJump : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void reachesTheSandboxThroughTheJumpHost();
    void unknownJumpHostKeyFailsAtOnce();
    void jumpHostDownFailsAtOnce();

private:
    QByteArray jumpLog() const;
    // A copy of the auth-sshd ssh config with `from` replaced by `to` (one change to the jump host).
    QString configWith(const QByteArray &from, const QByteArray &to);
    static QString failure(const QString &config, qint64 *elapsedMs);

    QTemporaryDir m_tmp;
};

void TestProxyJump::initTestCase()
{
    if (const QString missing = authSshdMissing(); !missing.isEmpty())
        QSKIP(qPrintable(missing));
    QVERIFY2(authSshdFile(QStringLiteral("ssh_config")).contains(QByteArray("Host " + viaJump.toUtf8())),
             "auth-sshd wrote no via-jump host: was TORCHDECK_SANDBOX_DIR set when it started?");
    QVERIFY(m_tmp.isValid());
}

QByteArray TestProxyJump::jumpLog() const
{
    return authSshdFile(QStringLiteral("sshd-jump/log"));
}

QString TestProxyJump::configWith(const QByteArray &from, const QByteArray &to)
{
    QByteArray text = authSshdFile(QStringLiteral("ssh_config"));
    const int jumpBlock = text.indexOf("Host torchdeck-auth-jump\n");
    const int at = text.indexOf(from, jumpBlock);
    if (jumpBlock < 0 || at < 0)
        return {};
    text.replace(at, from.size(), to);
    const QString path = m_tmp.filePath(QStringLiteral("config-%1").arg(QString::fromUtf8(to.toHex().left(16))));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text + '\n') != text.size() + 1)
        return {};
    return path;
}

QString TestProxyJump::failure(const QString &config, qint64 *elapsedMs)
{
    ConnectionSettings settings = authSshdSettings(viaJump);
    settings.sshConfigFile = config;
    Connection connection(settings);
    connection.setInteractive(true); // would ask if it could: nothing here may wait for an answer
    connect(&connection, &Connection::hostKeyConfirmationNeeded, &connection,
            [&connection] { connection.answerHostKey(false); });
    QElapsedTimer timer;
    timer.start();
    connection.open();
    QString error;
    if (waitConnected(connection, connectTimeoutMs, &error))
        return QStringLiteral("connected");
    *elapsedMs = timer.elapsed();
    return error;
}

void TestProxyJump::reachesTheSandboxThroughTheJumpHost()
{
    const int logBefore = jumpLog().size();
    Connection connection(authSshdSettings(viaJump)); // not interactive: the jump must not ask anything
    connection.open();
    QString error;
    QVERIFY2(waitConnected(connection, connectTimeoutMs, &error), qPrintable(error));
    // The sandbox's sshd answers (it sets SLURM_CONF for its sessions, the jump sshd does not)...
    const ExecResult result = runAndWait(connection, QStringLiteral("printf %s \"$SLURM_CONF\""), 10000);
    QCOMPARE(result.error, QString());
    QCOMPARE(result.out, qEnvironmentVariable("SLURM_CONF").toUtf8());
    // ...and the jump sshd forwarded this connection to the sandbox's port.
    const QByteArray port = qgetenv("TORCHDECK_SANDBOX_SSH_PORT");
    QVERIFY(!port.isEmpty());
    const QRegularExpression forwarding(
        QStringLiteral("server_request_direct_tcpip: originator 127.0.0.1 port 65535, target 127.0.0.1 port %1\r?\n")
            .arg(QString::fromUtf8(port)));
    // (the jump sshd's session process writes its log lines a moment later)
    QTRY_VERIFY2_WITH_TIMEOUT(forwarding.match(QString::fromUtf8(jumpLog().mid(logBefore))).hasMatch(),
                              jumpLog().mid(logBefore).constData(), 5000);
}

void TestProxyJump::unknownJumpHostKeyFailsAtOnce()
{
    // The jump host's key is checked by OpenSSH's ssh (libssh runs it for ProxyJump), against the known_hosts
    // the ssh config names for the jump host: here an empty one.
    const QString emptyKnownHosts = m_tmp.filePath(QStringLiteral("known_hosts.empty"));
    QFile empty(emptyKnownHosts);
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.close();
    const QString config = configWith("UserKnownHostsFile " + QFile::encodeName(authSshdDir()) + "/known_hosts",
                                      "UserKnownHostsFile " + QFile::encodeName(emptyKnownHosts));
    QVERIFY(!config.isEmpty());
    qint64 elapsedMs = 0;
    const QString error = failure(config, &elapsedMs);
    QVERIFY2(error.startsWith(QStringLiteral("cannot connect to torchdeck-sandbox-via-jump: ")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("the ssh to the jump host said: ")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("Host key verification failed.")), qPrintable(error));
    QVERIFY2(elapsedMs < failureMs, qPrintable(QString::number(elapsedMs)));
}

void TestProxyJump::jumpHostDownFailsAtOnce()
{
    const QByteArray jumpPort = QRegularExpression(QStringLiteral("^jump (\\d+)$"), QRegularExpression::MultilineOption)
                                    .match(QString::fromUtf8(authSshdFile(QStringLiteral("ports"))))
                                    .captured(1)
                                    .toUtf8();
    QVERIFY(!jumpPort.isEmpty());
    const QString config = configWith("Port " + jumpPort + '\n', "Port 1\n"); // nothing listens on port 1
    QVERIFY(!config.isEmpty());
    qint64 elapsedMs = 0;
    const QString error = failure(config, &elapsedMs);
    QVERIFY2(error.contains(QStringLiteral("the ssh to the jump host said: ssh: connect to host 127.0.0.1 port 1: "
                                           "Connection refused")),
             qPrintable(error));
    QVERIFY2(elapsedMs < failureMs, qPrintable(QString::number(elapsedMs)));
}

QTEST_GUILESS_MAIN(TestProxyJump)
#include "tst_proxyjump.moc"
