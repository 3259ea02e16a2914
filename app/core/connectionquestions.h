#pragma once

#include <QMetaType>
#include <QString>
#include <functional>
#include <optional>

namespace torchdeck {

enum class HostKeyStatus { Known, Unknown, Changed, OtherType, Error };

// The server's host key as checked against known_hosts: what a front shows when it asks to trust it.
struct HostKeyCheck {
    HostKeyStatus status = HostKeyStatus::Error;
    QString keyType;           // e.g. ssh-ed25519
    QString fingerprintSha256; // "SHA256:..." as ssh prints it
    QString error;
};

// A question the connection asks the user through a front (dialog or terminal). Answers are secrets:
// they are used once and never stored or logged.
struct CredentialPrompt {
    enum class Kind { Passphrase, Password, KeyboardInteractive };
    Kind kind = Kind::Password;
    QString host;
    QString instruction; // keyboard-interactive: the server's instruction text (e.g. a 2FA hint)
    QString text;        // what to ask, e.g. "Password:" or "Verification code:"
    bool echo = false;   // true when the server says the answer may be shown (rare)
};

// Returns the answer, or nullopt when the user cancelled or no one can be asked (non-interactive use).
using PromptFunction = std::function<std::optional<QString>(const CredentialPrompt &)>;

// Overwrites a secret before its memory is released.
inline void wipe(QString &secret)
{
    secret.fill(u'\0');
    secret.clear();
}

} // namespace torchdeck

Q_DECLARE_METATYPE(torchdeck::HostKeyCheck)
Q_DECLARE_METATYPE(torchdeck::CredentialPrompt)
