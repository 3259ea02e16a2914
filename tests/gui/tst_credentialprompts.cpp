#include "client/agentclient.h"
#include "core/store/runstore.h"
#include "gui/connectionprompts.h"
#include "gui/credentialdialog.h"
#include "gui/keychainsecrets.h"
#include "testmain.h"

#include <QApplication>
#include <QCheckBox>
#include <QLineEdit>
#include <QMessageBox>
#include <QTest>

using namespace torchdeck;

namespace {
CredentialPrompt passwordPrompt()
{
    CredentialPrompt prompt;
    prompt.kind = CredentialPrompt::Kind::Password;
    prompt.host = QStringLiteral("hpc.example.org");
    prompt.text = QStringLiteral("Password:");
    return prompt;
}

template <typename T> T *waitForDialog(const QString &name)
{
    T *found = nullptr;
    (void)QTest::qWaitFor(
        [&] {
            for (QWidget *w : QApplication::topLevelWidgets()) {
                if (w->objectName() == name && w->isVisible())
                    found = qobject_cast<T *>(w);
            }
            return found != nullptr;
        },
        10000);
    return found;
}

// The desktop asked for a password: the question as the agent sends it (no agent answers here), answered with
// a dialog that "hunter2" is typed into.
struct PasswordAsked {
    RunStore store;
    AgentClient agent{AgentClient::Options(), &store};
    KeychainSecrets secrets;
    QWidget window;
    CredentialDialog *dialog = nullptr;

    PasswordAsked()
    {
        answerWithDialogs(&agent, &window, &secrets);
        emit agent.credentialNeeded(QStringLiteral("hpc"), passwordPrompt());
        dialog = waitForDialog<CredentialDialog>(QStringLiteral("credentialDialog"));
        if (dialog)
            QTest::keyClicks(dialog->field(), QStringLiteral("hunter2"));
    }
};
} // namespace

// Secrets are stored only when the user ticks "remember": the dialog offers it off, a 2FA code never, and
// an answer given without the tick asks the keychain for nothing. This machine has no Secret Service
// (no session bus in this test): a ticked answer shows the keychain's refusal instead of storing.
// tst_keychainprompts.cpp tests storing, using and removing with a real gnome-keyring.
class TestCredentialPrompts : public QObject {
    Q_OBJECT
private slots:
    void rememberIsOfferedOffAndNeverForCodes()
    {
        CredentialDialog password(passwordPrompt());
        QVERIFY(!password.rememberBox()->isHidden());
        QVERIFY(!password.rememberBox()->isChecked());
        QVERIFY(!password.rememberRequested());
        QCOMPARE(password.field()->echoMode(), QLineEdit::Password);
        password.rememberBox()->setChecked(true);
        QVERIFY(password.rememberRequested());

        CredentialPrompt code = passwordPrompt();
        code.kind = CredentialPrompt::Kind::KeyboardInteractive;
        code.text = QStringLiteral("Verification code:");
        CredentialDialog twoFactor(code);
        QVERIFY(twoFactor.rememberBox()->isHidden());
        twoFactor.rememberBox()->setChecked(true);
        QVERIFY(!twoFactor.rememberRequested());
        QVERIFY(KeychainSecrets::keyFor(code).isEmpty());
        QCOMPARE(KeychainSecrets::keyFor(passwordPrompt()), QStringLiteral("password:hpc.example.org"));
    }

    void anAnswerWithoutTheTickIsNotStored()
    {
        PasswordAsked asked;
        QVERIFY2(asked.dialog, "no password dialog (a stored password answered?)");
        asked.dialog->accept();
        QTest::qWait(200);
        QCOMPARE(asked.secrets.writesRequested(), 0);
    }

    void aTickedAnswerGoesToTheKeychainOnly()
    {
        PasswordAsked asked;
        QVERIFY(asked.dialog);
        asked.dialog->rememberBox()->setChecked(true);
        asked.dialog->accept();
        QCOMPARE(asked.secrets.writesRequested(), 1);
        if (!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
            QSKIP("a session bus is here: whether it stores depends on its keychain; not checked");
        // No keychain service: the refusal is shown, nothing falls back to a file.
        auto *problem = waitForDialog<QMessageBox>(QStringLiteral("keychainProblem"));
        QVERIFY(problem);
        QVERIFY(problem->text().startsWith(QStringLiteral("The system keychain did not store it: ")));
        problem->accept();
    }
};

TORCHDECK_TEST_MAIN(TestCredentialPrompts)
#include "tst_credentialprompts.moc"
