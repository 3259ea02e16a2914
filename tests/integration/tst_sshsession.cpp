// SshSession against the real sandbox sshd (scripts/sandbox, started by the ctest fixture).
#include "core/shellquote.h"
#include "remote/sshsession.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::remote;

class TestSshSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void knownHostRunsCommandsWithExitCodes();
    void hostileWordsRoundTrip_data();
    void hostileWordsRoundTrip();
    void unknownHostKeyIsReportedThenAccepted();
    void changedHostKeyIsRefused();
    void wrongKeyFailsAuthentication();
    void encryptedKeyAsksForItsPassphrase();
    void unreachableHostIsAClearError();

private:
    // A copy of the sandbox's client config with its known_hosts and identity replaced.
    QString writeConfig(const QString &knownHosts, const QString &identity = {});
    SshSession connected();

    QString m_sandboxDir;
    QString m_sshConfig;
    QTemporaryDir m_tmp;
};

void TestSshSession::initTestCase()
{
    m_sandboxDir = qEnvironmentVariable("TORCHDECK_SANDBOX_DIR");
    m_sshConfig = qEnvironmentVariable("TORCHDECK_SSH_CONFIG");
    if (m_sandboxDir.isEmpty() || !QFile::exists(m_sandboxDir + QStringLiteral("/run/pids")))
        QSKIP("the sandbox is not running (run through ctest, which starts it)");
    QVERIFY(m_tmp.isValid());
}

SshSession TestSshSession::connected()
{
    SshSession session;
    const QString error = session.connect(QStringLiteral("torchdeck-sandbox"), m_sshConfig);
    if (!error.isEmpty())
        qWarning("%s", qPrintable(error));
    return session;
}

QString TestSshSession::writeConfig(const QString &knownHosts, const QString &identity)
{
    QFile original(m_sandboxDir + QStringLiteral("/ssh/config"));
    if (!original.open(QIODevice::ReadOnly))
        return {};
    QString text = QString::fromUtf8(original.readAll());
    text.replace(QRegularExpression(QStringLiteral("UserKnownHostsFile .*")),
                 QStringLiteral("UserKnownHostsFile ") + knownHosts);
    if (!identity.isEmpty())
        text.replace(QRegularExpression(QStringLiteral("IdentityFile .*")), QStringLiteral("IdentityFile ") + identity);
    const QString path = m_tmp.filePath(QStringLiteral("config-%1").arg(QFileInfo(knownHosts).fileName()));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(text.toUtf8());
    return path;
}

void TestSshSession::knownHostRunsCommandsWithExitCodes()
{
    SshSession session;
    QCOMPARE(session.connect(QStringLiteral("torchdeck-sandbox"), m_sshConfig), QString());
    const HostKeyCheck key = session.checkHostKey();
    QCOMPARE(key.status, HostKeyStatus::Known);
    QCOMPARE(key.keyType, QStringLiteral("ssh-ed25519"));
    QVERIFY2(key.fingerprintSha256.startsWith(QStringLiteral("SHA256:")), qPrintable(key.fingerprintSha256));
    QCOMPARE(session.authenticate(), QString());

    const ExecResult result = session.exec(QStringLiteral("echo out; echo err >&2; exit 42"));
    QCOMPARE(result.error, QString());
    QCOMPARE(result.exitCode, 42);
    QCOMPARE(result.out, QByteArray("out\n"));
    QCOMPARE(result.err, QByteArray("err\n"));

    const ExecResult slurm = session.exec(QStringLiteral("sinfo -h -o %P"));
    QVERIFY2(slurm.ok(), slurm.err.constData());
    QCOMPARE(slurm.out, QByteArray("debug*\nshort\n"));
}

void TestSshSession::hostileWordsRoundTrip_data()
{
    QTest::addColumn<QString>("word");
    QTest::addRow("spaces and quotes") << QStringLiteral("my \"job\" 'name'");
    QTest::addRow("substitution") << QStringLiteral("$(touch /tmp/torchdeck-pwned) `id`");
    QTest::addRow("newline") << QStringLiteral("a\nb;exit 3");
}

void TestSshSession::hostileWordsRoundTrip()
{
    QFETCH(QString, word);
    SshSession session = connected();
    QCOMPARE(session.authenticate(), QString());
    const ExecResult result = session.exec(QStringLiteral("printf '%s' ") + shellQuote(word));
    QVERIFY(result.ok());
    QCOMPARE(QString::fromUtf8(result.out), word);
    QVERIFY(!QFile::exists(QStringLiteral("/tmp/torchdeck-pwned")));
}

void TestSshSession::unknownHostKeyIsReportedThenAccepted()
{
    const QString knownHosts = m_tmp.filePath(QStringLiteral("known_hosts_empty"));
    const QString config = writeConfig(knownHosts);
    {
        SshSession session;
        QCOMPARE(session.connect(QStringLiteral("torchdeck-sandbox"), config), QString());
        QCOMPARE(session.checkHostKey().status, HostKeyStatus::Unknown);
        QCOMPARE(session.acceptHostKey(), QString());
    }
    SshSession again;
    QCOMPARE(again.connect(QStringLiteral("torchdeck-sandbox"), config), QString());
    QCOMPARE(again.checkHostKey().status, HostKeyStatus::Known);
    QCOMPARE(again.authenticate(), QString());
}

void TestSshSession::changedHostKeyIsRefused()
{
    const QString otherKey = m_tmp.filePath(QStringLiteral("other_host_key"));
    QCOMPARE(QProcess::execute(QStringLiteral("ssh-keygen"),
                               {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                                QStringLiteral("-N"), QString(), QStringLiteral("-f"), otherKey}),
             0);
    QFile pub(otherKey + QStringLiteral(".pub"));
    QVERIFY(pub.open(QIODevice::ReadOnly));
    const QString port = qEnvironmentVariable("TORCHDECK_SANDBOX_SSH_PORT");
    const QString knownHosts = m_tmp.filePath(QStringLiteral("known_hosts_changed"));
    QFile file(knownHosts);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("[127.0.0.1]:" + port.toUtf8() + ' ' + pub.readAll().split(' ').mid(0, 2).join(' ') + '\n');
    file.close();

    SshSession session;
    QCOMPARE(session.connect(QStringLiteral("torchdeck-sandbox"), writeConfig(knownHosts)), QString());
    const HostKeyCheck key = session.checkHostKey();
    QCOMPARE(key.status, HostKeyStatus::Changed);
    QVERIFY2(key.error.contains(QStringLiteral("CHANGED")), qPrintable(key.error));
    QVERIFY(key.error.contains(key.fingerprintSha256));
}

void TestSshSession::wrongKeyFailsAuthentication()
{
    const QString strangerKey = m_tmp.filePath(QStringLiteral("stranger_key"));
    QCOMPARE(QProcess::execute(QStringLiteral("ssh-keygen"),
                               {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                                QStringLiteral("-N"), QString(), QStringLiteral("-f"), strangerKey}),
             0);
    const QString config = writeConfig(m_sandboxDir + QStringLiteral("/ssh/known_hosts"), strangerKey);
    SshSession session;
    QCOMPARE(session.connect(QStringLiteral("torchdeck-sandbox"), config), QString());
    QCOMPARE(session.checkHostKey().status, HostKeyStatus::Known);
    const QString error = session.authenticate();
    QVERIFY2(error.contains(QStringLiteral("authentication to torchdeck-sandbox failed")), qPrintable(error));
    QVERIFY(!session.exec(QStringLiteral("true")).ok());
}

void TestSshSession::encryptedKeyAsksForItsPassphrase()
{
    const QString key = m_tmp.filePath(QStringLiteral("encrypted_key"));
    const QString passphrase = QStringLiteral("correct horse $(battery)");
    QCOMPARE(QProcess::execute(QStringLiteral("ssh-keygen"),
                               {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                                QStringLiteral("-N"), passphrase, QStringLiteral("-f"), key}),
             0);
    // Authorize the key for this test only; the sandbox's own line stays first and is restored after.
    QFile authorized(m_sandboxDir + QStringLiteral("/ssh/authorized_keys"));
    QVERIFY(authorized.open(QIODevice::ReadOnly));
    const QByteArray original = authorized.readAll();
    authorized.close();
    QFile pub(key + QStringLiteral(".pub"));
    QVERIFY(pub.open(QIODevice::ReadOnly));
    QVERIFY(authorized.open(QIODevice::WriteOnly | QIODevice::Append));
    authorized.write(pub.readAll());
    authorized.close();
    auto restore = qScopeGuard([&] {
        if (authorized.open(QIODevice::WriteOnly | QIODevice::Truncate))
            authorized.write(original);
    });
    const QString config = writeConfig(m_sandboxDir + QStringLiteral("/ssh/known_hosts"), key);

    QList<CredentialPrompt> asked;
    PromptFunction answer = [&](const CredentialPrompt &prompt) -> std::optional<QString> {
        asked.append(prompt);
        return passphrase;
    };
    SshSession session;
    QCOMPARE(session.connect(QStringLiteral("torchdeck-sandbox"), config), QString());
    QCOMPARE(session.checkHostKey().status, HostKeyStatus::Known);
    QCOMPARE(session.authenticate(answer), QString());
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked.first().kind, CredentialPrompt::Kind::Passphrase);
    QVERIFY(!asked.first().text.contains(passphrase));
    QCOMPARE(session.exec(QStringLiteral("exit 5")).exitCode, 5);

    PromptFunction cancel = [](const CredentialPrompt &) -> std::optional<QString> { return std::nullopt; };
    SshSession cancelled;
    QCOMPARE(cancelled.connect(QStringLiteral("torchdeck-sandbox"), config), QString());
    QCOMPARE(cancelled.checkHostKey().status, HostKeyStatus::Known);
    const QString error = cancelled.authenticate(cancel);
    QVERIFY2(error.contains(QStringLiteral("failed")), qPrintable(error));
    QVERIFY(!error.contains(passphrase));
}

void TestSshSession::unreachableHostIsAClearError()
{
    const QString config = m_tmp.filePath(QStringLiteral("config-closed-port"));
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("Host closed\n  HostName 127.0.0.1\n  Port 1\n");
    file.close();
    SshSession session;
    const QString error = session.connect(QStringLiteral("closed"), config);
    QVERIFY2(error.startsWith(QStringLiteral("cannot connect to closed")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestSshSession)
#include "tst_sshsession.moc"
