#include "gui/keychainsecrets.h"

#include <QPointer>
#include <qt6keychain/keychain.h>

namespace torchdeck {

namespace {
const QString kService = QStringLiteral("torchdeck");
}

KeychainSecrets::KeychainSecrets(QObject *parent)
    : QObject(parent)
{
}

QString KeychainSecrets::keyFor(const CredentialPrompt &prompt)
{
    switch (prompt.kind) {
    case CredentialPrompt::Kind::Password:
        return QStringLiteral("password:%1").arg(prompt.host);
    case CredentialPrompt::Kind::Passphrase:
        return QStringLiteral("passphrase:%1:%2").arg(prompt.host, prompt.text);
    case CredentialPrompt::Kind::KeyboardInteractive:
        return {};
    }
    return {};
}

void KeychainSecrets::read(const QString &key, QObject *context,
                           const std::function<void(std::optional<QString>, const QString &)> &done)
{
    auto *job = new QKeychain::ReadPasswordJob(kService, this);
    job->setKey(key);
    job->setInsecureFallback(false);
    QPointer<QObject> guard = context;
    connect(job, &QKeychain::Job::finished, this, [job, guard, done](QKeychain::Job *) {
        if (!guard)
            return;
        if (job->error() == QKeychain::NoError)
            done(job->textData(), {});
        else
            done(std::nullopt, job->error() == QKeychain::EntryNotFound ? QString() : job->errorString());
    });
    job->start();
}

void KeychainSecrets::write(const QString &key, const QString &secret, QObject *context,
                            const std::function<void(const QString &)> &done)
{
    ++m_writes;
    auto *job = new QKeychain::WritePasswordJob(kService, this);
    job->setKey(key);
    job->setInsecureFallback(false);
    job->setTextData(secret);
    QPointer<QObject> guard = context;
    connect(job, &QKeychain::Job::finished, this, [job, guard, done](QKeychain::Job *) {
        if (guard)
            done(job->error() == QKeychain::NoError ? QString() : job->errorString());
    });
    job->start();
}

void KeychainSecrets::remove(const QString &key)
{
    auto *job = new QKeychain::DeletePasswordJob(kService, this);
    job->setKey(key);
    job->start();
}

} // namespace torchdeck
