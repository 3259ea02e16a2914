#pragma once

#include "core/connectionquestions.h"

#include <QObject>
#include <functional>
#include <optional>

namespace torchdeck {

// Passwords and key passphrases the user asked to remember, in the system keychain through QtKeychain
// (Secret Service, KWallet, macOS Keychain, Windows Credential Store), never in a file of ours: no insecure
// fallback. Every call is asynchronous; callbacks run on the caller's thread, never if `context` is gone.
class KeychainSecrets : public QObject {
    Q_OBJECT
public:
    explicit KeychainSecrets(QObject *parent = nullptr);

    // What a prompt's answer is stored under: its kind, host and text (a passphrase names its key file).
    // Keyboard-interactive answers (one-time codes) have no key: empty.
    static QString keyFor(const CredentialPrompt &prompt);

    // The stored secret, or nullopt (none stored, or no keychain: `problem` says which).
    void read(const QString &key, QObject *context,
              const std::function<void(std::optional<QString> secret, const QString &problem)> &done);
    // Empty error: stored.
    void write(const QString &key, const QString &secret, QObject *context,
               const std::function<void(const QString &error)> &done);
    void remove(const QString &key);
    int writesRequested() const { return m_writes; }

private:
    int m_writes = 0;
};

} // namespace torchdeck
