// Authentication of SshSession: every method the server offers, secrets asked through a PromptFunction.
#include "remote/logging.h"
#include "remote/remotetr.h"
#include "remote/sshsession.h"

#include <QStringList>
#include <cstring>
#include <libssh/callbacks.h>

namespace torchdeck::remote {

namespace {

constexpr int maxKeyboardInteractiveRounds = 8; // a server asking forever is a server misbehaving

struct PassphraseContext {
    const PromptFunction *ask;
    QString host;
    bool cancelled = false;
};

// libssh calls this when a key file is encrypted; the answer is copied into libssh's buffer only.
int askPassphrase(const char *prompt, char *buffer, size_t length, int /*echo*/, int /*verify*/, void *userdata)
{
    auto *context = static_cast<PassphraseContext *>(userdata);
    if (!context->ask || !*context->ask || context->cancelled)
        return SSH_ERROR;
    CredentialPrompt question;
    question.kind = CredentialPrompt::Kind::Passphrase;
    question.host = context->host;
    question.text = QString::fromUtf8(prompt);
    qCDebug(lcRemote) << "asking for a key passphrase:" << question.text;
    std::optional<QString> answer = (*context->ask)(question);
    if (!answer) {
        context->cancelled = true; // the other encrypted keys would ask again: the user said no
        return SSH_ERROR;
    }
    QByteArray bytes = answer->toUtf8();
    wipe(*answer);
    const bool fits = size_t(bytes.size()) < length;
    if (fits)
        std::memcpy(buffer, bytes.constData(), size_t(bytes.size()) + 1);
    bytes.fill('\0');
    return fits ? SSH_OK : SSH_ERROR;
}

} // namespace

std::optional<QByteArray> SshSession::askSecret(const PromptFunction &ask, const CredentialPrompt &question)
{
    qCDebug(lcRemote) << "asking" << m_host << "for" << question.text << "echo" << question.echo;
    std::optional<QString> answer = ask(question);
    if (!answer)
        return std::nullopt;
    QByteArray bytes = answer->toUtf8();
    wipe(*answer);
    return bytes;
}

SshSession::AuthOutcome SshSession::authenticateWithKeys(const PromptFunction &ask)
{
    const int agent = ssh_userauth_agent(m_session.get(), nullptr);
    if (agent == SSH_AUTH_SUCCESS)
        return {AuthOutcome::Accepted, {}};
    if (agent == SSH_AUTH_PARTIAL)
        return {AuthOutcome::Partial, {}};
    PassphraseContext context{&ask, m_host};
    ssh_callbacks_struct callbacks{};
    callbacks.userdata = &context;
    callbacks.auth_function = askPassphrase;
    ssh_callbacks_init(&callbacks);
    ssh_set_callbacks(m_session.get(), &callbacks);
    const int rc = ssh_userauth_publickey_auto(m_session.get(), nullptr, nullptr);
    ssh_set_callbacks(m_session.get(), nullptr); // the context dies with this frame
    if (rc == SSH_AUTH_SUCCESS)
        return {AuthOutcome::Accepted, {}};
    if (rc == SSH_AUTH_PARTIAL)
        return {AuthOutcome::Partial, {}};
    if (context.cancelled)
        return {AuthOutcome::Cancelled, Tr::tr("the key passphrase was not given")};
    return {AuthOutcome::Refused, Tr::tr("no key from ssh-agent or the identity files was accepted")};
}

std::optional<SshSession::AuthOutcome> SshSession::settledOutcome(int rc) const
{
    if (rc == SSH_AUTH_SUCCESS)
        return AuthOutcome{AuthOutcome::Accepted, {}};
    if (rc == SSH_AUTH_PARTIAL)
        return AuthOutcome{AuthOutcome::Partial, {}};
    if (rc == SSH_AUTH_ERROR)
        return AuthOutcome{AuthOutcome::Failed, sshError()};
    return std::nullopt;
}

SshSession::AuthOutcome SshSession::authenticateKeyboardInteractive(const PromptFunction &ask)
{
    QStringList asked; // the questions, to say which answers were refused
    int rc = ssh_userauth_kbdint(m_session.get(), nullptr, nullptr);
    for (int round = 0; rc == SSH_AUTH_INFO && round < maxKeyboardInteractiveRounds; ++round) {
        const int prompts = ssh_userauth_kbdint_getnprompts(m_session.get());
        const QString instruction = QString::fromUtf8(ssh_userauth_kbdint_getinstruction(m_session.get()));
        qCDebug(lcRemote) << "keyboard-interactive round" << round << "with" << prompts << "question(s)";
        for (int i = 0; i < prompts; ++i) {
            char echo = 0;
            CredentialPrompt question;
            question.kind = CredentialPrompt::Kind::KeyboardInteractive;
            question.host = m_host;
            question.instruction = instruction;
            question.text = QString::fromUtf8(ssh_userauth_kbdint_getprompt(m_session.get(), unsigned(i), &echo));
            question.echo = echo != 0;
            asked << question.text.trimmed();
            std::optional<QByteArray> answer = askSecret(ask, question);
            if (!answer)
                return {AuthOutcome::Cancelled, Tr::tr("no answer to \"%1\"").arg(question.text.trimmed())};
            const int set = ssh_userauth_kbdint_setanswer(m_session.get(), unsigned(i), answer->constData());
            answer->fill('\0');
            if (set < 0)
                return {AuthOutcome::Failed, sshError()};
        }
        rc = ssh_userauth_kbdint(m_session.get(), nullptr, nullptr);
    }
    if (const std::optional<AuthOutcome> settled = settledOutcome(rc))
        return *settled;
    if (asked.isEmpty())
        return {AuthOutcome::Unavailable, Tr::tr("the server refused keyboard-interactive login")};
    return {AuthOutcome::Refused,
            Tr::tr("the server refused the answers to \"%1\"").arg(asked.join(QStringLiteral("\", \"")))};
}

SshSession::AuthOutcome SshSession::authenticateWithPassword(const PromptFunction &ask)
{
    CredentialPrompt question;
    question.kind = CredentialPrompt::Kind::Password;
    question.host = m_host;
    question.text = Tr::tr("Password for %1:").arg(m_host);
    std::optional<QByteArray> password = askSecret(ask, question);
    if (!password)
        return {AuthOutcome::Cancelled, Tr::tr("no password was given")};
    const int rc = ssh_userauth_password(m_session.get(), nullptr, password->constData());
    password->fill('\0');
    if (const std::optional<AuthOutcome> settled = settledOutcome(rc))
        return *settled;
    return {AuthOutcome::Refused, Tr::tr("the server refused the password")};
}

SshSession::AuthOutcome SshSession::authenticateOnce(int methods, const PromptFunction &ask, AuthOutcome &keys,
                                                     AuthOutcome &interactive)
{
    if (methods & SSH_AUTH_METHOD_PUBLICKEY) {
        keys = authenticateWithKeys(ask);
        if (keys.kind == AuthOutcome::Accepted || keys.kind == AuthOutcome::Partial ||
            keys.kind == AuthOutcome::Cancelled)
            return keys;
    }
    if (ask && (methods & SSH_AUTH_METHOD_INTERACTIVE)) {
        interactive = authenticateKeyboardInteractive(ask);
        // Not on to "password" after refused answers: behind both is the same PAM stack on nearly every
        // server, so the user would be asked again for what was just refused (and a wrong code reads as
        // a wrong password).
        if (interactive.kind != AuthOutcome::Unavailable)
            return interactive;
    }
    if (ask && (methods & SSH_AUTH_METHOD_PASSWORD))
        return authenticateWithPassword(ask);
    return {AuthOutcome::Unavailable, {}};
}

QString SshSession::authenticate(const PromptFunction &ask)
{
    if (!isConnected())
        return Tr::tr("not connected to %1").arg(m_host);
    // "none" first: some servers accept it, and it makes the server list its methods.
    if (ssh_userauth_none(m_session.get(), nullptr) == SSH_AUTH_SUCCESS)
        return {};
    const auto failed = [this](const QString &why) {
        qCDebug(lcRemote) << "authentication to" << m_host << "failed:" << why;
        return Tr::tr("authentication to %1 failed: %2").arg(m_host, why);
    };
    AuthOutcome keys;
    AuthOutcome interactive;
    int methods = ssh_userauth_list(m_session.get(), nullptr);
    // A server that wants two methods (AuthenticationMethods publickey,keyboard-interactive) answers the
    // first with "partial": what it lists then is what it still wants.
    constexpr int maxMethods = 3;
    for (int round = 0; round < maxMethods; ++round) {
        const AuthOutcome outcome = authenticateOnce(methods, ask, keys, interactive);
        if (outcome.kind == AuthOutcome::Accepted)
            return {};
        if (outcome.kind == AuthOutcome::Cancelled || outcome.kind == AuthOutcome::Failed ||
            outcome.kind == AuthOutcome::Refused)
            return failed(outcome.detail);
        if (outcome.kind != AuthOutcome::Partial)
            break;
        qCDebug(lcRemote) << m_host << "accepted one method and wants another";
        methods = ssh_userauth_list(m_session.get(), nullptr);
    }
    QStringList offered;
    if (methods & SSH_AUTH_METHOD_PUBLICKEY)
        offered << QStringLiteral("publickey");
    if (methods & SSH_AUTH_METHOD_INTERACTIVE)
        offered << QStringLiteral("keyboard-interactive");
    if (methods & SSH_AUTH_METHOD_PASSWORD)
        offered << QStringLiteral("password");
    QStringList why;
    if ((methods & SSH_AUTH_METHOD_PUBLICKEY) && !keys.detail.isEmpty())
        why << keys.detail;
    if (interactive.kind == AuthOutcome::Unavailable && !interactive.detail.isEmpty())
        why << interactive.detail;
    if (!ask && (methods & (SSH_AUTH_METHOD_INTERACTIVE | SSH_AUTH_METHOD_PASSWORD)))
        why << Tr::tr("no one can be asked for a password or code");
    if (why.isEmpty())
        why << Tr::tr("no method it offers is one torchdeck can use");
    return failed(Tr::tr("%1 (server offers: %2)")
                      .arg(why.join(Tr::tr(", and ")),
                           offered.isEmpty() ? Tr::tr("nothing") : offered.join(QStringLiteral(", "))));
}

} // namespace torchdeck::remote
