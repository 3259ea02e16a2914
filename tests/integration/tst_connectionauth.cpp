// Password and keyboard-interactive (password + TOTP code) logins through the Connection's prompts, against
// real sshd daemons with PAM (scripts/lib/auth-sshd): what the front is asked, and the failures.
#include "authsshd.h"
#include "remote/connection.h"
#include "remotewait.h"

#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QMutex>
#include <QSignalSpy>
#include <QTest>
#include <functional>

using namespace torchdeck;
using namespace torchdeck::remote;
using namespace torchdeck::testing;

namespace {
constexpr int connectTimeoutMs = 20000;
constexpr qint64 promptFailureMs = 10000; // a refused login ends well before this; a hang does not

QMutex logMutex;
QStringList loggedMessages; // everything logged while the tests ran (debug included)
QtMessageHandler previousHandler = nullptr;

void captureMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    {
        const QMutexLocker lock(&logMutex);
        loggedMessages << message;
    }
    previousHandler(type, context, message);
}
} // namespace

class TestConnectionAuth : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void passwordIsAskedThroughTheFront();
    void wrongPasswordFailsClearly();
    void keyboardInteractiveAsksPasswordThenCode();
    void wrongCodeFailsClearly();
    void keyThenCodeAsksOnlyTheCode();
    void cancelledPromptAsksNothingMore();
    void nonInteractiveFailsWithoutAsking();
    void secretsNeverReachTheLog(); // last: checks what every test above logged
    void cleanupTestCase();

private:
    using Answer = std::function<std::optional<QString>(const CredentialPrompt &)>;
    // Opens a connection to `host`, answering every question with `answer`; returns the questions asked.
    QList<CredentialPrompt> login(const QString &host, const Answer &answer, bool *connected, QString *error,
                                  qint64 *elapsedMs = nullptr);
    QString freshCode(); // a code pam_oath takes: of a later step than the last one used
    QString wrongCode();

    QString m_password;
    QStringList m_codesGiven;
};

void TestConnectionAuth::initTestCase()
{
    if (const QString missing = authSshdMissing(); !missing.isEmpty())
        QSKIP(qPrintable(missing));
    m_password = QString::fromUtf8(authSshdFile(QStringLiteral("password")));
    QVERIFY(m_password.size() >= 8);
    QLoggingCategory::setFilterRules(QStringLiteral("torchdeck.remote.debug=true"));
    previousHandler = qInstallMessageHandler(captureMessage);
}

void TestConnectionAuth::cleanupTestCase()
{
    if (previousHandler)
        qInstallMessageHandler(previousHandler);
}

QList<CredentialPrompt> TestConnectionAuth::login(const QString &host, const Answer &answer, bool *connected,
                                                  QString *error, qint64 *elapsedMs)
{
    QList<CredentialPrompt> asked;
    Connection connection(authSshdSettings(host));
    connection.setInteractive(bool(answer));
    connect(&connection, &Connection::credentialNeeded, &connection, [&](const CredentialPrompt &prompt) {
        asked << prompt;
        connection.answerCredential(answer ? answer(prompt) : std::nullopt);
    });
    QElapsedTimer timer;
    timer.start();
    connection.open();
    *connected = waitConnected(connection, connectTimeoutMs, error);
    if (elapsedMs)
        *elapsedMs = timer.elapsed();
    if (*connected) {
        const ExecResult result = runAndWait(connection, QStringLiteral("echo logged-in"), 10000);
        if (result.out != "logged-in\n") {
            *connected = false;
            *error = QStringLiteral("connected, but a command failed: %1").arg(result.error);
        }
    }
    return asked;
}

QString TestConnectionAuth::freshCode()
{
    const QString code = totpCode(nextUnusedTotpStep());
    m_codesGiven << code;
    return code;
}

QString TestConnectionAuth::wrongCode()
{
    // One that no step in the PAM window (10 either side) accepts.
    const qint64 now = currentTotpStep();
    QStringList valid;
    for (qint64 step = now - 11; step <= now + 11; ++step)
        valid << totpCode(step);
    for (int digit = 0; digit <= 9; ++digit) {
        const QString candidate(6, QChar(u'0' + digit));
        if (!valid.contains(candidate))
            return candidate;
    }
    return {};
}

void TestConnectionAuth::passwordIsAskedThroughTheFront()
{
    bool connected = false;
    QString error;
    const QList<CredentialPrompt> asked = login(
        QStringLiteral("torchdeck-auth-password"), [&](const CredentialPrompt &) { return m_password; }, &connected,
        &error);
    QVERIFY2(connected, qPrintable(error));
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked.first().kind, CredentialPrompt::Kind::Password);
    QCOMPARE(asked.first().host, QStringLiteral("torchdeck-auth-password"));
    QCOMPARE(asked.first().text, QStringLiteral("Password for torchdeck-auth-password:"));
    QCOMPARE(asked.first().echo, false);
}

void TestConnectionAuth::wrongPasswordFailsClearly()
{
    bool connected = true;
    QString error;
    qint64 elapsedMs = 0;
    const QList<CredentialPrompt> asked = login(
        QStringLiteral("torchdeck-auth-password"), [](const CredentialPrompt &) { return QStringLiteral("not-it"); },
        &connected, &error, &elapsedMs);
    QVERIFY(!connected);
    QCOMPARE(error,
             QStringLiteral("authentication to torchdeck-auth-password failed: the server refused the password"));
    QCOMPARE(asked.size(), 1);
    QVERIFY2(elapsedMs < promptFailureMs, qPrintable(QString::number(elapsedMs)));
}

void TestConnectionAuth::keyboardInteractiveAsksPasswordThenCode()
{
    bool connected = false;
    QString error;
    const QList<CredentialPrompt> asked = login(
        QStringLiteral("torchdeck-auth-otp"),
        [&](const CredentialPrompt &prompt) {
            return prompt.text.startsWith(u"One-time password") ? freshCode() : m_password;
        },
        &connected, &error);
    QVERIFY2(connected, qPrintable(error));
    QCOMPARE(asked.size(), 2);
    for (const CredentialPrompt &prompt : asked) {
        QCOMPARE(prompt.kind, CredentialPrompt::Kind::KeyboardInteractive);
        QCOMPARE(prompt.host, QStringLiteral("torchdeck-auth-otp"));
        QCOMPARE(prompt.echo, false);
    }
    QCOMPARE(asked.at(0).text, QStringLiteral("Password: ")); // pam_exec's question
    QVERIFY2(asked.at(1).text.startsWith(u"One-time password (OATH) for"),
             qPrintable(asked.at(1).text)); // pam_oath's
}

void TestConnectionAuth::wrongCodeFailsClearly()
{
    const QString wrong = wrongCode();
    QVERIFY(!wrong.isEmpty());
    m_codesGiven << wrong;
    bool connected = true;
    QString error;
    qint64 elapsedMs = 0;
    const QList<CredentialPrompt> asked = login(
        QStringLiteral("torchdeck-auth-otp"),
        [&](const CredentialPrompt &prompt) { return prompt.text.startsWith(u"One-time") ? wrong : m_password; },
        &connected, &error, &elapsedMs);
    QVERIFY(!connected);
    QVERIFY2(error.startsWith(QStringLiteral("authentication to torchdeck-auth-otp failed: the server refused the "
                                             "answers to \"Password:\", \"One-time password (OATH) for")),
             qPrintable(error));
    QCOMPARE(asked.size(), 2); // and not asked for a password again after the code was refused
    QVERIFY2(elapsedMs < promptFailureMs, qPrintable(QString::number(elapsedMs)));
}

// AuthenticationMethods publickey,keyboard-interactive: the key is accepted "partially", and the login goes on
// with the one-time code (the only question) instead of failing.
void TestConnectionAuth::keyThenCodeAsksOnlyTheCode()
{
    bool connected = false;
    QString error;
    const QList<CredentialPrompt> asked = login(
        QStringLiteral("torchdeck-auth-keycode"), [&](const CredentialPrompt &) { return freshCode(); }, &connected,
        &error);
    QVERIFY2(connected, qPrintable(error));
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked.first().kind, CredentialPrompt::Kind::KeyboardInteractive);
    QVERIFY2(asked.first().text.startsWith(u"One-time password (OATH) for"), qPrintable(asked.first().text));
    // Without anyone to ask, the key alone is not enough, and the message says so.
    const QList<CredentialPrompt> none = login(QStringLiteral("torchdeck-auth-keycode"), {}, &connected, &error);
    QVERIFY(!connected);
    QCOMPARE(none.size(), 0);
    QVERIFY2(error.contains(QStringLiteral("no one can be asked for a password or code")), qPrintable(error));
}

void TestConnectionAuth::cancelledPromptAsksNothingMore()
{
    bool connected = true;
    QString error;
    qint64 elapsedMs = 0;
    const QList<CredentialPrompt> asked = login(
        QStringLiteral("torchdeck-auth-otp"), [](const CredentialPrompt &) { return std::optional<QString>(); },
        &connected, &error, &elapsedMs);
    QVERIFY(!connected);
    QCOMPARE(error, QStringLiteral("authentication to torchdeck-auth-otp failed: no answer to \"Password:\""));
    QCOMPARE(asked.size(), 1);
    QVERIFY2(elapsedMs < promptFailureMs, qPrintable(QString::number(elapsedMs)));
}

void TestConnectionAuth::nonInteractiveFailsWithoutAsking()
{
    for (const QString &host : {QStringLiteral("torchdeck-auth-password"), QStringLiteral("torchdeck-auth-otp")}) {
        bool connected = true;
        QString error;
        qint64 elapsedMs = 0;
        const QList<CredentialPrompt> asked = login(host, {}, &connected, &error, &elapsedMs);
        QVERIFY(!connected);
        QCOMPARE(asked.size(), 0);
        QVERIFY2(error.contains(QStringLiteral("no one can be asked for a password or code")), qPrintable(error));
        QVERIFY2(elapsedMs < promptFailureMs, qPrintable(QString::number(elapsedMs)));
    }
}

void TestConnectionAuth::secretsNeverReachTheLog()
{
    const QMutexLocker lock(&logMutex);
    const QString all = loggedMessages.join(u'\n');
    // The capture works: the questions themselves are logged at debug level.
    QVERIFY2(all.contains(QStringLiteral("One-time password (OATH)")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Password for torchdeck-auth-password:")), qPrintable(all));
    QVERIFY(!m_codesGiven.isEmpty());
    QVERIFY2(!all.contains(m_password), "the password was logged");
    for (const QString &code : std::as_const(m_codesGiven))
        QVERIFY2(!all.contains(code), qPrintable(QStringLiteral("the one-time code %1 was logged").arg(code)));
}

QTEST_GUILESS_MAIN(TestConnectionAuth)
#include "tst_connectionauth.moc"
