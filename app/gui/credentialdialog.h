#pragma once

#include "core/connectionquestions.h"

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;

namespace torchdeck {

// A password, key passphrase or keyboard-interactive (2FA) question of a connection. "Remember in the
// system keychain" is offered for passwords and passphrases only, and is off unless the user ticks it.
class CredentialDialog : public QDialog {
    Q_OBJECT
public:
    CredentialDialog(const CredentialPrompt &prompt, QWidget *parent = nullptr);

    QString answer() const;
    void clearAnswer(); // the secret leaves the widget once used
    bool rememberRequested() const;
    QLineEdit *field() const { return m_answer; }
    QCheckBox *rememberBox() const { return m_remember; }
    void setNote(const QString &note); // e.g. why the stored one was not used

private:
    QLabel *m_note;
    QLineEdit *m_answer;
    QCheckBox *m_remember;
};

QString credentialPromptTitle(const CredentialPrompt &prompt);

} // namespace torchdeck
