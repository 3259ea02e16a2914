// Authentication of SshSession: every method the server offers, secrets asked through a PromptFunction.
#include "remote/sshsession.h"

#include <QStringList>
#include <libssh/callbacks.h>

#include <cstring>

namespace torchdeck::remote {

namespace {

constexpr int maxKeyboardInteractiveRounds = 8; // a server asking forever is a server misbehaving

struct PassphraseContext {
    const PromptFunction *ask;
    QString host;
};

// libssh calls this when a key file is encrypted; the answer is copied into libssh's buffer only.
int askPassphrase(const char *prompt, char *buffer, size_t length, int /*echo*/, int /*verify*/, void *userdata)
{
    const auto *context = static_cast<PassphraseContext *>(userdata);
    if (!context->ask || !*context->ask)
        return SSH_ERROR;
    CredentialPrompt question;
    question.kind = CredentialPrompt::Kind::Passphrase;
    question.host = context->host;
    question.text = QString::fromUtf8(prompt);
    std::optional<QString> answer = (*context->ask)(question);
    if (!answer)
        return SSH_ERROR;
    QByteArray bytes = answer->toUtf8();
    wipe(*answer);
    const bool fits = size_t(bytes.size()) < length;
    if (fits)
        std::memcpy(buffer, bytes.constData(), size_t(bytes.size()) + 1);
    bytes.fill('\0');
    return fits ? SSH_OK : SSH_ERROR;
}

} // namespace

bool SshSession::authenticateWithKeys(const PromptFunction &ask)
{
    if (ssh_userauth_agent(m_session.get(), nullptr) == SSH_AUTH_SUCCESS)
        return true;
    PassphraseContext context{&ask, m_host};
    ssh_callbacks_struct callbacks{};
    callbacks.userdata = &context;
    callbacks.auth_function = askPassphrase;
    ssh_callbacks_init(&callbacks);
    ssh_set_callbacks(m_session.get(), &callbacks);
    const int rc = ssh_userauth_publickey_auto(m_session.get(), nullptr, nullptr);
    ssh_set_callbacks(m_session.get(), nullptr); // the context dies with this frame
    return rc == SSH_AUTH_SUCCESS;
}

bool SshSession::authenticateKeyboardInteractive(const PromptFunction &ask)
{
    int rc = ssh_userauth_kbdint(m_session.get(), nullptr, nullptr);
    for (int round = 0; rc == SSH_AUTH_INFO && round < maxKeyboardInteractiveRounds; ++round) {
        const int prompts = ssh_userauth_kbdint_getnprompts(m_session.get());
        const QString instruction = QString::fromUtf8(ssh_userauth_kbdint_getinstruction(m_session.get()));
        for (int i = 0; i < prompts; ++i) {
            char echo = 0;
            CredentialPrompt question;
            question.kind = CredentialPrompt::Kind::KeyboardInteractive;
            question.host = m_host;
            question.instruction = instruction;
            question.text = QString::fromUtf8(ssh_userauth_kbdint_getprompt(m_session.get(), unsigned(i), &echo));
            question.echo = echo != 0;
            std::optional<QString> answer = ask(question);
            if (!answer)
                return false;
            QByteArray bytes = answer->toUtf8();
            wipe(*answer);
            const int set = ssh_userauth_kbdint_setanswer(m_session.get(), unsigned(i), bytes.constData());
            bytes.fill('\0');
            if (set < 0)
                return false;
        }
        rc = ssh_userauth_kbdint(m_session.get(), nullptr, nullptr);
    }
    return rc == SSH_AUTH_SUCCESS;
}

bool SshSession::authenticateWithPassword(const PromptFunction &ask)
{
    CredentialPrompt question;
    question.kind = CredentialPrompt::Kind::Password;
    question.host = m_host;
    question.text = QStringLiteral("Password for %1:").arg(m_host);
    std::optional<QString> answer = ask(question);
    if (!answer)
        return false;
    QByteArray bytes = answer->toUtf8();
    wipe(*answer);
    const int rc = ssh_userauth_password(m_session.get(), nullptr, bytes.constData());
    bytes.fill('\0');
    return rc == SSH_AUTH_SUCCESS;
}

QString SshSession::authenticate(const PromptFunction &ask)
{
    if (!isConnected())
        return QStringLiteral("not connected to %1").arg(m_host);
    // "none" first: some servers accept it, and it makes the server list its methods.
    if (ssh_userauth_none(m_session.get(), nullptr) == SSH_AUTH_SUCCESS)
        return {};
    const int methods = ssh_userauth_list(m_session.get(), nullptr);
    if ((methods & SSH_AUTH_METHOD_PUBLICKEY) && authenticateWithKeys(ask))
        return {};
    if (ask && (methods & SSH_AUTH_METHOD_INTERACTIVE) && authenticateKeyboardInteractive(ask))
        return {};
    if (ask && (methods & SSH_AUTH_METHOD_PASSWORD) && authenticateWithPassword(ask))
        return {};
    QStringList offered;
    if (methods & SSH_AUTH_METHOD_PUBLICKEY)
        offered << QStringLiteral("publickey");
    if (methods & SSH_AUTH_METHOD_INTERACTIVE)
        offered << QStringLiteral("keyboard-interactive");
    if (methods & SSH_AUTH_METHOD_PASSWORD)
        offered << QStringLiteral("password");
    return QStringLiteral("authentication to %1 failed: no key from ssh-agent or the identity files was "
                          "accepted%2 (server offers: %3)")
        .arg(m_host, ask ? QString() : QStringLiteral(" and no one can be asked for a password or code"),
             offered.isEmpty() ? QStringLiteral("nothing") : offered.join(QStringLiteral(", ")));
}

} // namespace torchdeck::remote
