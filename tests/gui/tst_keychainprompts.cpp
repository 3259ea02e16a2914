// Remembered secrets in a real Secret Service: run by keychain_test.sh inside its own D-Bus session with a
// fresh, unlocked gnome-keyring-daemon whose files lie in the build dir (never the user's keyring).
// loginWithoutPrompt also needs the password sshd of scripts/lib/auth-sshd (ctest gui.keychain_login).
#include "../integration/authsshd.h"
#include "gui/connectionprompts.h"
#include "gui/credentialdialog.h"
#include "gui/keychainsecrets.h"
#include "remote/connection.h"
#include "term/blocking.h"

#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

using namespace torchdeck;
using torchdeck::term::runAndWait;
using torchdeck::term::waitConnected;

namespace {
remote::CredentialPrompt passwordPrompt(const QString &host)
{
    remote::CredentialPrompt prompt;
    prompt.kind = remote::CredentialPrompt::Kind::Password;
    prompt.host = host;
    prompt.text = QStringLiteral("Password for %1:").arg(host);
    return prompt;
}

remote::ConnectionSettings settingsFor(const QString &host)
{
    remote::ConnectionSettings settings;
    settings.host = host;
    return settings;
}

CredentialDialog *visibleDialog()
{
    for (QWidget *w : QApplication::topLevelWidgets()) {
        if (w->objectName() == QStringLiteral("credentialDialog") && w->isVisible())
            return qobject_cast<CredentialDialog *>(w);
    }
    return nullptr;
}

CredentialDialog *waitForDialog(int timeoutMs = 10000)
{
    (void)QTest::qWaitFor([] { return visibleDialog() != nullptr; }, timeoutMs);
    return visibleDialog();
}

// The stored secret through QtKeychain, waiting for its answer; nullopt: none stored. `problem` any error.
std::optional<QString> readBack(KeychainSecrets &secrets, const QString &key, QString *problem = nullptr)
{
    bool done = false;
    std::optional<QString> result;
    secrets.read(key, &secrets, [&](std::optional<QString> secret, const QString &error) {
        result = std::move(secret);
        if (problem)
            *problem = error;
        done = true;
    });
    (void)QTest::qWaitFor([&] { return done; }, 10000);
    return result;
}

bool storeAndWait(KeychainSecrets &secrets, const QString &key, const QString &secret)
{
    bool done = false;
    QString problem = QStringLiteral("no answer");
    secrets.write(key, secret, &secrets, [&](const QString &error) {
        problem = error;
        done = true;
    });
    (void)QTest::qWaitFor([&] { return done; }, 10000);
    return problem.isEmpty();
}

void answerDialog(CredentialDialog *dialog, const QString &answer, bool remember)
{
    QTest::keyClicks(dialog->field(), answer);
    dialog->rememberBox()->setChecked(remember);
    dialog->accept();
}
} // namespace

class TestKeychainPrompts : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanup();
    void aTickedAnswerIsStoredAndReadBack();
    void aStoredAnswerIsUsedWithoutAsking();
    void askedAgainRemovesTheStoredOneAndATickReplacesIt();
    void aFailedAttemptRemovesTheStoredOneAndOthersDoNot();
    void loginWithoutPrompt();

private:
    KeychainSecrets m_secrets;
};

void TestKeychainPrompts::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"), "run through keychain_test.sh (ctest)");
    QString problem;
    QVERIFY2(storeAndWait(m_secrets, QStringLiteral("probe"), QStringLiteral("x")), "no Secret Service");
    QCOMPARE(readBack(m_secrets, QStringLiteral("probe"), &problem), QStringLiteral("x"));
}

void TestKeychainPrompts::cleanup()
{
    if (CredentialDialog *dialog = visibleDialog())
        dialog->reject();
}

void TestKeychainPrompts::aTickedAnswerIsStoredAndReadBack()
{
    const QString host = QStringLiteral("stored.example.org");
    const QString key = KeychainSecrets::keyFor(passwordPrompt(host));
    QVERIFY(!readBack(m_secrets, key));
    remote::Connection connection(settingsFor(host));
    QWidget window;
    answerWithDialogs(&connection, &window, &m_secrets);
    emit connection.credentialNeeded(passwordPrompt(host));
    CredentialDialog *dialog = waitForDialog();
    QVERIFY(dialog);
    answerDialog(dialog, QStringLiteral("it's $(secret)"), true);
    QTRY_COMPARE_WITH_TIMEOUT(readBack(m_secrets, key), QStringLiteral("it's $(secret)"), 10000);
}

void TestKeychainPrompts::aStoredAnswerIsUsedWithoutAsking()
{
    const QString host = QStringLiteral("used.example.org");
    QVERIFY(storeAndWait(m_secrets, KeychainSecrets::keyFor(passwordPrompt(host)), QStringLiteral("hunter2")));
    remote::Connection connection(settingsFor(host));
    QWidget window;
    answerWithDialogs(&connection, &window, &m_secrets);
    emit connection.credentialNeeded(passwordPrompt(host));
    // The keychain's answer takes well under a second; a dialog would open by then.
    QTest::qWait(1500);
    QVERIFY(!visibleDialog());
}

void TestKeychainPrompts::askedAgainRemovesTheStoredOneAndATickReplacesIt()
{
    const QString host = QStringLiteral("again.example.org");
    const QString key = KeychainSecrets::keyFor(passwordPrompt(host));
    QVERIFY(storeAndWait(m_secrets, key, QStringLiteral("old-one")));
    remote::Connection connection(settingsFor(host));
    QWidget window;
    answerWithDialogs(&connection, &window, &m_secrets);
    emit connection.stateChanged(remote::ConnectionState::Connecting, {});
    emit connection.credentialNeeded(passwordPrompt(host));
    QTest::qWait(1000);
    QVERIFY(!visibleDialog());
    emit connection.credentialNeeded(passwordPrompt(host)); // the server did not take it
    CredentialDialog *dialog = waitForDialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->findChild<QLabel *>(QStringLiteral("credentialNote"))->text(),
             QStringLiteral("The one in the system keychain was refused."));
    QTRY_VERIFY_WITH_TIMEOUT(!readBack(m_secrets, key), 10000);
    answerDialog(dialog, QStringLiteral("new-one"), true);
    QTRY_COMPARE_WITH_TIMEOUT(readBack(m_secrets, key), QStringLiteral("new-one"), 10000);
}

void TestKeychainPrompts::aFailedAttemptRemovesTheStoredOneAndOthersDoNot()
{
    const QString host = QStringLiteral("failed.example.org");
    const QString key = KeychainSecrets::keyFor(passwordPrompt(host));
    QVERIFY(storeAndWait(m_secrets, key, QStringLiteral("wrong")));
    remote::Connection connection(settingsFor(host));
    QWidget window;
    answerWithDialogs(&connection, &window, &m_secrets);
    // Failing before anything was answered from the keychain (no route, host key refused) keeps it.
    emit connection.stateChanged(remote::ConnectionState::Connecting, {});
    emit connection.stateChanged(remote::ConnectionState::Failed, QStringLiteral("connection refused"));
    QTest::qWait(500);
    QCOMPARE(readBack(m_secrets, key), QStringLiteral("wrong"));
    // Answered from it, then failed: a refused password ends the attempt without asking again.
    emit connection.stateChanged(remote::ConnectionState::Connecting, {});
    emit connection.credentialNeeded(passwordPrompt(host));
    QTest::qWait(1000);
    QVERIFY(!visibleDialog());
    emit connection.stateChanged(
        remote::ConnectionState::Failed,
        QStringLiteral("authentication to %1 failed: the server refused the password").arg(host));
    QTRY_VERIFY_WITH_TIMEOUT(!readBack(m_secrets, key), 10000);
}

// End to end against a real PAM sshd: typed once with the tick, then the next connections log in without a
// prompt; a stored password the server refuses fails that attempt, and the one after asks again.
void TestKeychainPrompts::loginWithoutPrompt()
{
    using namespace torchdeck::testing;
    if (const QString missing = authSshdMissing(); !missing.isEmpty())
        QSKIP(qPrintable(missing));
    const QString password = QString::fromUtf8(authSshdFile(QStringLiteral("password")));
    const QString host = QStringLiteral("torchdeck-auth-password");
    const QString key = KeychainSecrets::keyFor(passwordPrompt(host));
    m_secrets.remove(key);
    QTRY_VERIFY_WITH_TIMEOUT(!readBack(m_secrets, key), 10000);
    QWidget window;
    const auto attempt = [&](int *asked, QString *error) {
        remote::Connection connection(authSshdSettings(host));
        connection.setInteractive(true);
        answerWithDialogs(&connection, &window, &m_secrets);
        QObject::connect(&connection, &remote::Connection::credentialNeeded, &connection, [asked] { ++*asked; });
        connection.open();
        if (CredentialDialog *dialog = waitForDialog(3000))
            answerDialog(dialog, password, true);
        const bool connected = waitConnected(connection, 20000, error);
        connection.close();
        return connected;
    };
    int asked = 0;
    QString error;
    QVERIFY2(attempt(&asked, &error), qPrintable(error)); // the dialog answered, with the tick
    QCOMPARE(asked, 1);
    QTRY_COMPARE_WITH_TIMEOUT(readBack(m_secrets, key), password, 10000);

    // No dialog: waitForDialog's 3 s pass unanswered and the keychain logs in.
    asked = 0;
    remote::Connection connection(authSshdSettings(host));
    connection.setInteractive(true);
    answerWithDialogs(&connection, &window, &m_secrets);
    QSignalSpy prompts(&connection, &remote::Connection::credentialNeeded);
    connection.open();
    QVERIFY2(waitConnected(connection, 20000, &error), qPrintable(error));
    QCOMPARE(prompts.size(), 1); // the server asked; the keychain answered
    QVERIFY(!visibleDialog());
    QCOMPARE(runAndWait(connection, QStringLiteral("echo logged-in"), 10000).out, QByteArray("logged-in\n"));
    connection.close();

    QVERIFY(storeAndWait(m_secrets, key, QStringLiteral("not-it")));
    remote::Connection refused(authSshdSettings(host));
    refused.setInteractive(true);
    answerWithDialogs(&refused, &window, &m_secrets);
    refused.open();
    QVERIFY(!waitConnected(refused, 20000, &error));
    QCOMPARE(error, QStringLiteral("authentication to %1 failed: the server refused the password").arg(host));
    QVERIFY(!visibleDialog());
    QTRY_VERIFY_WITH_TIMEOUT(!readBack(m_secrets, key), 10000);
    QVERIFY2(attempt(&asked, &error), qPrintable(error)); // asked again, and remembered again
    QCOMPARE(asked, 1);
    QCOMPARE(readBack(m_secrets, key), password);
}

QTEST_MAIN(TestKeychainPrompts)
#include "tst_keychainprompts.moc"
