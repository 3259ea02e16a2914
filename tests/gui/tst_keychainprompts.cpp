// Remembered secrets in a real Secret Service: run by keychain_test.sh inside its own D-Bus session with a
// fresh, unlocked gnome-keyring-daemon whose files lie in the build dir (never the user's keyring).
// loginWithoutPrompt also needs the password sshd of scripts/lib/auth-sshd (ctest gui.keychain_login).
#include "../integration/authsshd.h"
#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "gui/connectionprompts.h"
#include "gui/credentialdialog.h"
#include "gui/keychainsecrets.h"
#include "guisandbox.h"

#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

using namespace torchdeck;

namespace {
CredentialPrompt passwordPrompt(const QString &host)
{
    CredentialPrompt prompt;
    prompt.kind = CredentialPrompt::Kind::Password;
    prompt.host = host;
    prompt.text = QStringLiteral("Password for %1:").arg(host);
    return prompt;
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

// A connection's questions as the agent sends them (no agent answers here), answered with dialogs over a window.
struct AnsweredWithDialogs {
    AnsweredWithDialogs(RunStore *store, KeychainSecrets *secrets)
        : connection({}, store)
    {
        answerWithDialogs(&connection, &window, secrets);
    }
    AgentClient connection;
    QWidget window;
};

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
    RunStore m_store;
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
    AnsweredWithDialogs answered(&m_store, &m_secrets);
    AgentClient &connection = answered.connection;
    emit connection.credentialNeeded(host, passwordPrompt(host));
    CredentialDialog *dialog = waitForDialog();
    QVERIFY(dialog);
    answerDialog(dialog, QStringLiteral("it's $(secret)"), true);
    QTRY_COMPARE_WITH_TIMEOUT(readBack(m_secrets, key), QStringLiteral("it's $(secret)"), 10000);
}

void TestKeychainPrompts::aStoredAnswerIsUsedWithoutAsking()
{
    const QString host = QStringLiteral("used.example.org");
    QVERIFY(storeAndWait(m_secrets, KeychainSecrets::keyFor(passwordPrompt(host)), QStringLiteral("hunter2")));
    AnsweredWithDialogs answered(&m_store, &m_secrets);
    AgentClient &connection = answered.connection;
    emit connection.credentialNeeded(host, passwordPrompt(host));
    // The keychain's answer takes well under a second; a dialog would open by then.
    QTest::qWait(1500);
    QVERIFY(!visibleDialog());
}

void TestKeychainPrompts::askedAgainRemovesTheStoredOneAndATickReplacesIt()
{
    const QString host = QStringLiteral("again.example.org");
    const QString key = KeychainSecrets::keyFor(passwordPrompt(host));
    QVERIFY(storeAndWait(m_secrets, key, QStringLiteral("old-one")));
    AnsweredWithDialogs answered(&m_store, &m_secrets);
    AgentClient &connection = answered.connection;
    emit connection.stateChanged(host, ConnectionState::Connecting, {});
    emit connection.credentialNeeded(host, passwordPrompt(host));
    QTest::qWait(1000);
    QVERIFY(!visibleDialog());
    emit connection.credentialNeeded(host, passwordPrompt(host)); // the server did not take it
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
    AnsweredWithDialogs answered(&m_store, &m_secrets);
    AgentClient &connection = answered.connection;
    // Failing before anything was answered from the keychain (no route, host key refused) keeps it.
    emit connection.stateChanged(host, ConnectionState::Connecting, {});
    emit connection.stateChanged(host, ConnectionState::Failed, QStringLiteral("connection refused"));
    QTest::qWait(500);
    QCOMPARE(readBack(m_secrets, key), QStringLiteral("wrong"));
    // Answered from it, then failed: a refused password ends the attempt without asking again.
    emit connection.stateChanged(host, ConnectionState::Connecting, {});
    emit connection.credentialNeeded(host, passwordPrompt(host));
    QTest::qWait(1000);
    QVERIFY(!visibleDialog());
    emit connection.stateChanged(
        host, ConnectionState::Failed,
        QStringLiteral("authentication to %1 failed: the server refused the password").arg(host));
    QTRY_VERIFY_WITH_TIMEOUT(!readBack(m_secrets, key), 10000);
}

// End to end against a real PAM sshd, through the agent as the window sees it: typed once with the tick, then
// the next logins go without a prompt; a stored password the server refuses fails that attempt, and the one
// after asks again. Each attempt has an agent of its own (an agent keeps its login: one login per agent).
void TestKeychainPrompts::loginWithoutPrompt()
{
    using namespace torchdeck::testing;
    if (const QString missing = authSshdMissing(); !missing.isEmpty())
        QSKIP(qPrintable(missing));
    const QString password = QString::fromUtf8(authSshdFile(QStringLiteral("password")));
    const QString host = QStringLiteral("torchdeck-auth-password");
    const QString key = KeychainSecrets::keyFor(passwordPrompt(host));
    qputenv("TORCHDECK_SSH_CONFIG", QFile::encodeName(authSshdDir() + QStringLiteral("/ssh_config")));
    m_secrets.remove(key);
    QTRY_VERIFY_WITH_TIMEOUT(!readBack(m_secrets, key), 10000);
    QWidget window;
    // Logs in through a fresh agent; `answer`: type the password in the dialog if one opens.
    const auto attempt = [&](bool answer, int *asked, QString *error) {
        TestAgent agent;
        if (!agent.started) {
            *error = agent.error;
            return false;
        }
        AgentClient client({QStringLiteral("window"), true, false, false}, &m_store);
        answerWithDialogs(&client, &window, &m_secrets);
        QObject::connect(&client, &AgentClient::credentialNeeded, &client, [asked] { ++*asked; });
        SessionOperation *opened = client.workDirectoryOf(host); // connects, then runs a command there
        QSignalSpy ok(opened, &SessionOperation::finished);
        QSignalSpy failed(opened, &SessionOperation::failed);
        if (answer) {
            if (CredentialDialog *dialog = waitForDialog(3000))
                answerDialog(dialog, password, true);
        }
        (void)QTest::qWaitFor([&] { return !ok.isEmpty() || !failed.isEmpty(); }, 20000);
        *error = failed.isEmpty() ? QString() : failed.constFirst().constFirst().toString();
        return !ok.isEmpty();
    };
    int asked = 0;
    QString error;
    QVERIFY2(attempt(true, &asked, &error), qPrintable(error)); // the dialog answered, with the tick
    QCOMPARE(asked, 1);
    QTRY_COMPARE_WITH_TIMEOUT(readBack(m_secrets, key), password, 10000);

    asked = 0;
    QVERIFY2(attempt(false, &asked, &error), qPrintable(error)); // no dialog: the keychain logs in
    QCOMPARE(asked, 1);                                          // the server asked; the keychain answered
    QVERIFY(!visibleDialog());

    QVERIFY(storeAndWait(m_secrets, key, QStringLiteral("not-it")));
    asked = 0;
    QVERIFY(!attempt(false, &asked, &error));
    QVERIFY2(error.contains(QStringLiteral("authentication to %1 failed: the server refused the password").arg(host)),
             qPrintable(error));
    QVERIFY(!visibleDialog());
    QTRY_VERIFY_WITH_TIMEOUT(!readBack(m_secrets, key), 10000);
    asked = 0;
    QVERIFY2(attempt(true, &asked, &error), qPrintable(error)); // asked again, and remembered again
    QCOMPARE(asked, 1);
    QCOMPARE(readBack(m_secrets, key), password);
}

QTEST_MAIN(TestKeychainPrompts)
#include "tst_keychainprompts.moc"
