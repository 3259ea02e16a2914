#include "gui/connectionprompts.h"

#include "remote/connection.h"

#include <QInputDialog>
#include <QMessageBox>
#include <QPointer>

namespace torchdeck {

namespace {
QString hostKeyText(const remote::Connection &connection, const remote::HostKeyCheck &key)
{
    return QObject::tr("The authenticity of host %1 cannot be established.\n\n%2 key fingerprint:\n%3\n\n"
                       "Trust this host and remember its key in known_hosts?")
        .arg(connection.host(), key.keyType, key.fingerprintSha256);
}

QString promptTitle(const remote::CredentialPrompt &prompt)
{
    switch (prompt.kind) {
    case remote::CredentialPrompt::Kind::Passphrase: return QObject::tr("Key passphrase for %1").arg(prompt.host);
    case remote::CredentialPrompt::Kind::Password: return QObject::tr("Password for %1").arg(prompt.host);
    case remote::CredentialPrompt::Kind::KeyboardInteractive: return QObject::tr("Sign in to %1").arg(prompt.host);
    }
    return {};
}
} // namespace

void answerWithDialogs(remote::Connection *connection, QWidget *parent)
{
    QPointer<QWidget> owner = parent;
    QObject::connect(connection, &remote::Connection::hostKeyConfirmationNeeded, connection,
                     [connection, owner](const remote::HostKeyCheck &key) {
                         auto *box = new QMessageBox(QMessageBox::Question, QObject::tr("Unknown host key"),
                                                     hostKeyText(*connection, key),
                                                     QMessageBox::Yes | QMessageBox::No, owner);
                         box->setDefaultButton(QMessageBox::No);
                         box->setAttribute(Qt::WA_DeleteOnClose);
                         QObject::connect(box, &QMessageBox::finished, connection,
                                          [connection](int result) { connection->answerHostKey(result == QMessageBox::Yes); });
                         box->open();
                     });
    QObject::connect(connection, &remote::Connection::credentialNeeded, connection,
                     [connection, owner](const remote::CredentialPrompt &prompt) {
                         auto *dialog = new QInputDialog(owner);
                         dialog->setAttribute(Qt::WA_DeleteOnClose);
                         dialog->setWindowTitle(promptTitle(prompt));
                         dialog->setLabelText(prompt.instruction.isEmpty()
                                                  ? prompt.text
                                                  : QString(prompt.instruction + u'\n' + prompt.text));
                         dialog->setTextEchoMode(prompt.echo ? QLineEdit::Normal : QLineEdit::Password);
                         QObject::connect(dialog, &QInputDialog::finished, connection, [connection, dialog](int result) {
                             if (result != QDialog::Accepted)
                                 return connection->answerCredential(std::nullopt);
                             QString answer = dialog->textValue();
                             connection->answerCredential(answer);
                             remote::wipe(answer);
                             dialog->setTextValue(QString());
                         });
                         dialog->open();
                     });
}

} // namespace torchdeck
