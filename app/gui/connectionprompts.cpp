#include "gui/connectionprompts.h"

#include "gui/credentialdialog.h"
#include "gui/keychainsecrets.h"
#include "remote/connection.h"

#include <QMessageBox>
#include <QPointer>
#include <QSet>
#include <memory>

namespace torchdeck {

namespace {
QString hostKeyText(const remote::Connection &connection, const remote::HostKeyCheck &key)
{
    return QObject::tr("The authenticity of host %1 cannot be established.\n\n%2 key fingerprint:\n%3\n\n"
                       "Trust this host and remember its key in known_hosts?")
        .arg(connection.host(), key.keyType, key.fingerprintSha256);
}

void askUser(remote::Connection *connection, QWidget *owner, KeychainSecrets *secrets,
             const remote::CredentialPrompt &prompt, const QString &note)
{
    auto *dialog = new CredentialDialog(prompt, owner);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setNote(note);
    const QString key = KeychainSecrets::keyFor(prompt);
    QObject::connect(dialog, &QDialog::finished, connection, [connection, dialog, secrets, key, owner](int result) {
        if (result != QDialog::Accepted)
            return connection->answerCredential(std::nullopt);
        QString answer = dialog->answer();
        dialog->clearAnswer();
        if (dialog->rememberRequested() && !key.isEmpty() && secrets) {
            QPointer<QWidget> parent = owner;
            secrets->write(key, answer, connection, [parent](const QString &error) {
                if (error.isEmpty())
                    return;
                auto *box = new QMessageBox(QMessageBox::Warning, QObject::tr("Not remembered"),
                                            QObject::tr("The system keychain did not store it: %1").arg(error),
                                            QMessageBox::Ok, parent);
                box->setObjectName(QStringLiteral("keychainProblem"));
                box->setAttribute(Qt::WA_DeleteOnClose);
                box->open();
            });
        }
        connection->answerCredential(answer);
        remote::wipe(answer);
    });
    dialog->open();
}
} // namespace

void answerWithDialogs(remote::Connection *connection, QWidget *parent, KeychainSecrets *secrets)
{
    QPointer<QWidget> owner = parent;
    QObject::connect(connection, &remote::Connection::hostKeyConfirmationNeeded, connection,
                     [connection, owner](const remote::HostKeyCheck &key) {
                         auto *box =
                             new QMessageBox(QMessageBox::Question, QObject::tr("Unknown host key"),
                                             hostKeyText(*connection, key), QMessageBox::Yes | QMessageBox::No, owner);
                         box->setDefaultButton(QMessageBox::No);
                         box->setAttribute(Qt::WA_DeleteOnClose);
                         QObject::connect(box, &QMessageBox::finished, connection, [connection](int result) {
                             connection->answerHostKey(result == QMessageBox::Yes);
                         });
                         box->open();
                     });
    // The keys answered from the keychain in this connection attempt: asked again, or the attempt failed (a
    // refused password is not asked again: the attempt fails), means it was wrong. A wrong one is removed, or
    // every later attempt would fail with it without asking.
    auto triedStored = std::make_shared<QSet<QString>>();
    QObject::connect(connection, &remote::Connection::stateChanged, connection,
                     [triedStored, secrets](remote::ConnectionState state, const QString &) {
                         if (state == remote::ConnectionState::Connecting ||
                             state == remote::ConnectionState::Reconnecting)
                             return;
                         if (state == remote::ConnectionState::Failed && secrets) {
                             for (const QString &key : std::as_const(*triedStored))
                                 secrets->remove(key);
                         }
                         triedStored->clear();
                     });
    QObject::connect(connection, &remote::Connection::credentialNeeded, connection,
                     [connection, owner, secrets, triedStored](const remote::CredentialPrompt &prompt) {
                         const QString key = KeychainSecrets::keyFor(prompt);
                         if (!secrets || key.isEmpty())
                             return askUser(connection, owner, secrets, prompt, {});
                         if (triedStored->contains(key)) {
                             secrets->remove(key);
                             triedStored->remove(key);
                             return askUser(connection, owner, secrets, prompt,
                                            QObject::tr("The one in the system keychain was refused."));
                         }
                         secrets->read(key, connection,
                                       [connection, owner, secrets, triedStored, prompt,
                                        key](std::optional<QString> secret, const QString &) {
                                           if (!secret)
                                               return askUser(connection, owner, secrets, prompt, {});
                                           triedStored->insert(key);
                                           connection->answerCredential(*secret);
                                           remote::wipe(*secret);
                                       });
                     });
}

} // namespace torchdeck
