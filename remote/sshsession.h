#pragma once

#include "core/connectionquestions.h"
#include "remote/sftphandles.h"
#include "remote/sshhandles.h"

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <QTemporaryFile>
#include <memory>
#include <optional>

namespace torchdeck::remote {

struct ExecResult {
    int exitCode = -1; // the remote command's exit status; -1 when it never ran or was killed
    QByteArray out;
    QByteArray err;
    QString error; // empty unless the channel failed; a non-zero exitCode alone is not an error here
    // The command was running when the connection was lost: it may or may not have done its work.
    bool interrupted = false;
    bool ok() const { return error.isEmpty() && exitCode == 0; }
};

// One SSH connection, used from one thread only (libssh sessions are not thread-safe).
// The order is fixed: connect() -> checkHostKey() (acceptHostKey() after the user agreed) -> authenticate().
// Every step returns an error message, empty on success.
class SshSession {
public:
    // host: an alias of the ssh config or a host name; configFile: empty means ~/.ssh/config. Every blocking
    // step (this one too) gives up after timeoutMs without an answer.
    QString connect(const QString &host, const QString &configFile = {}, int timeoutMs = 15000);
    HostKeyCheck checkHostKey();
    // Records the server's key in the known_hosts file, its host name hashed when the ssh config says
    // HashKnownHosts yes.
    QString acceptHostKey();
    // Tries, as the server allows: none, ssh-agent, key files (asking for passphrases), keyboard-interactive
    // (2FA prompts), password. `ask` may be empty: then nothing is asked and only agent/unencrypted keys
    // work. A question the user cancels ends the attempt at once: nothing more is asked.
    QString authenticate(const PromptFunction &ask = {});
    ExecResult exec(const QString &command); // runs to the end, blocking this thread
    // Opens a channel running `command` and leaves the reading to the caller (result.error on failure).
    ExecResult startExec(const QString &command, ChannelHandle &channel);
    sftp_session newSftp(QString &error); // an initialised SFTP session on this connection, caller owns it
    bool probe();                         // the socket takes a message: false when the connection is closed
    // A round trip the server must answer (a channel opened and closed): false when it does not within the
    // timeout, as when the link stalled or the server process is stopped.
    bool roundTrip();
    // A direct-tcpip channel: the server connects to host:port (resolved there) and relays its bytes; an error
    // in words (the server refused, the port is closed, the name is unknown there), empty on success.
    QString openForward(const QString &host, int port, ChannelHandle &channel);
    // A session channel with a pseudo-terminal of cols x rows (TERM `term`) running `command`: an interactive
    // shell's. The error in words; empty: open.
    QString openTerminal(const QString &command, const QString &term, int cols, int rows, ChannelHandle &channel);
    QString lastError() const { return sshError(); }
    void disconnect() { m_session.reset(); }
    bool isConnected() const;

private:
    // What one method came to; `detail` says why it did not succeed (never a secret).
    struct AuthOutcome {
        // Partial: accepted, and the server wants one more method (AuthenticationMethods
        // publickey,keyboard-interactive).
        enum Kind { Accepted, Partial, Refused, Unavailable, Cancelled, Failed } kind = Refused;
        QString detail;
    };
    QString sshError() const;
    QString proxyJumpThroughOurConfig(const QString &configFile);
    QString proxyFailure() const;
    AuthOutcome authenticateWithKeys(const PromptFunction &ask);
    AuthOutcome authenticateKeyboardInteractive(const PromptFunction &ask);
    AuthOutcome authenticateWithPassword(const PromptFunction &ask);
    // Accepted, partial or failed (the link's error), from a libssh answer; else refused: the method says why.
    std::optional<AuthOutcome> settledOutcome(int rc) const;
    // One round over the methods the server lists now, in order: keys, keyboard-interactive, password.
    AuthOutcome authenticateOnce(int methods, const PromptFunction &ask, AuthOutcome &keys, AuthOutcome &interactive);
    std::optional<QByteArray> askSecret(const PromptFunction &ask, const CredentialPrompt &question);
    SessionHandle m_session;
    QString m_host;
    bool m_hashKnownHosts = false;
    std::unique_ptr<QTemporaryFile> m_proxyLog; // the jump host's ssh writes its errors here (ProxyJump only)
};

} // namespace torchdeck::remote

Q_DECLARE_METATYPE(torchdeck::remote::ExecResult)
