#include "gui/credentialdialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

namespace torchdeck {

QString credentialPromptTitle(const CredentialPrompt &prompt)
{
    switch (prompt.kind) {
    case CredentialPrompt::Kind::Passphrase:
        return QObject::tr("Key passphrase for %1").arg(prompt.host);
    case CredentialPrompt::Kind::Password:
        return QObject::tr("Password for %1").arg(prompt.host);
    case CredentialPrompt::Kind::KeyboardInteractive:
        return QObject::tr("Sign in to %1").arg(prompt.host);
    }
    return {};
}

CredentialDialog::CredentialDialog(const CredentialPrompt &prompt, QWidget *parent)
    : QDialog(parent)
    , m_note(new QLabel)
    , m_answer(new QLineEdit)
    , m_remember(new QCheckBox(tr("&Remember in the system keychain")))
{
    setObjectName(QStringLiteral("credentialDialog"));
    setWindowTitle(credentialPromptTitle(prompt));
    auto *label =
        new QLabel(prompt.instruction.isEmpty() ? prompt.text : QString(prompt.instruction + u'\n' + prompt.text));
    label->setWordWrap(true);
    m_note->setObjectName(QStringLiteral("credentialNote"));
    m_note->setWordWrap(true);
    m_note->hide();
    m_answer->setEchoMode(prompt.echo ? QLineEdit::Normal : QLineEdit::Password);
    m_remember->setChecked(false);
    m_remember->setToolTip(
        tr("Stored by the desktop's keychain (Secret Service, KWallet...), never in torchdeck's files"));
    // A keyboard-interactive answer is usually a one-time code: nothing to remember.
    m_remember->setVisible(prompt.kind != CredentialPrompt::Kind::KeyboardInteractive);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(m_answer);
    layout->addWidget(m_remember);
    layout->addWidget(m_note);
    layout->addWidget(buttons);
}

QString CredentialDialog::answer() const
{
    return m_answer->text();
}

void CredentialDialog::clearAnswer()
{
    m_answer->clear();
}

bool CredentialDialog::rememberRequested() const
{
    return !m_remember->isHidden() && m_remember->isChecked();
}

void CredentialDialog::setNote(const QString &note)
{
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
}

} // namespace torchdeck
