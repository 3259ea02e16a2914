#include "gui/connectionprompts.h"

#include "client/agentclient.h"
#include "gui/credentialdialog.h"
#include "gui/keychainsecrets.h"

#include <QHash>
#include <QMessageBox>
#include <QPointer>
#include <QSet>
#include <memory>

namespace torchdeck {

namespace {
QString hostKeyText(const QString &cluster, const HostKeyCheck &key)
{
    return QObject::tr("The authenticity of host %1 cannot be established.\n\n%2 key fingerprint:\n%3\n\n"
                       "Trust this host and remember its key in known_hosts?")
        .arg(cluster, key.keyType, key.fingerprintSha256);
}

void askUser(AgentClient *agent, const QString &cluster, QWidget *owner, KeychainSecrets *secrets,
             const CredentialPrompt &prompt, const QString &note)
{
    auto *dialog = new CredentialDialog(prompt, owner);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setNote(note);
    const QString key = KeychainSecrets::keyFor(prompt);
    QObject::connect(dialog, &QDialog::finished, agent, [agent, cluster, dialog, secrets, key, owner](int result) {
        if (result != QDialog::Accepted)
            return agent->answerCredential(cluster, std::nullopt);
        QString answer = dialog->answer();
        dialog->clearAnswer();
        if (dialog->rememberRequested() && !key.isEmpty() && secrets) {
            QPointer<QWidget> parent = owner;
            secrets->write(key, answer, agent, [parent](const QString &error) {
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
        agent->answerCredential(cluster, answer);
        wipe(answer);
    });
    dialog->open();
}
} // namespace

void answerWithDialogs(AgentClient *agent, QWidget *parent, KeychainSecrets *secrets)
{
    QPointer<QWidget> owner = parent;
    QObject::connect(agent, &AgentClient::hostKeyConfirmationNeeded, agent,
                     [agent, owner](const QString &cluster, const HostKeyCheck &key) {
                         auto *box =
                             new QMessageBox(QMessageBox::Question, QObject::tr("Unknown host key"),
                                             hostKeyText(cluster, key), QMessageBox::Yes | QMessageBox::No, owner);
                         box->setDefaultButton(QMessageBox::No);
                         box->setAttribute(Qt::WA_DeleteOnClose);
                         QObject::connect(box, &QMessageBox::finished, agent, [agent, cluster](int result) {
                             agent->answerHostKey(cluster, result == QMessageBox::Yes);
                         });
                         box->open();
                     });
    // The keys answered from the keychain in a cluster's connection attempt: asked again, or the attempt failed
    // (a refused password is not asked again: the attempt fails), means it was wrong. A wrong one is removed, or
    // every later attempt would fail with it without asking.
    auto triedStored = std::make_shared<QHash<QString, QSet<QString>>>();
    QObject::connect(agent, &AgentClient::stateChanged, agent,
                     [triedStored, secrets](const QString &cluster, ConnectionState state, const QString &) {
                         if (state == ConnectionState::Connecting || state == ConnectionState::Reconnecting)
                             return;
                         if (state == ConnectionState::Failed && secrets) {
                             for (const QString &key : triedStored->value(cluster))
                                 secrets->remove(key);
                         }
                         triedStored->remove(cluster);
                     });
    QObject::connect(agent, &AgentClient::credentialNeeded, agent,
                     [agent, owner, secrets, triedStored](const QString &cluster, const CredentialPrompt &prompt) {
                         const QString key = KeychainSecrets::keyFor(prompt);
                         if (!secrets || key.isEmpty())
                             return askUser(agent, cluster, owner, secrets, prompt, {});
                         QSet<QString> &tried = (*triedStored)[cluster];
                         if (tried.contains(key)) {
                             secrets->remove(key);
                             tried.remove(key);
                             return askUser(agent, cluster, owner, secrets, prompt,
                                            QObject::tr("The one in the system keychain was refused."));
                         }
                         secrets->read(key, agent,
                                       [agent, cluster, owner, secrets, triedStored, prompt,
                                        key](std::optional<QString> secret, const QString &) {
                                           if (!secret)
                                               return askUser(agent, cluster, owner, secrets, prompt, {});
                                           (*triedStored)[cluster].insert(key);
                                           agent->answerCredential(cluster, *secret);
                                           wipe(*secret);
                                       });
                     });
}

} // namespace torchdeck
