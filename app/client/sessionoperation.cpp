#include "client/sessionoperation.h"

#include <QLoggingCategory>
#include <QMetaObject>

namespace torchdeck {

namespace {
Q_LOGGING_CATEGORY(lcOperation, "torchdeck.operation")
}

void warnUnreadable(const QString &what, const QString &error)
{
    qCWarning(lcOperation).noquote() << QStringLiteral("unreadable %1 from the agent: %2").arg(what, error);
}

SessionOperation::SessionOperation(QObject *parent)
    : QObject(parent)
{
    later([this] { emit started(); });
}

void SessionOperation::later(std::function<void()> emitIt)
{
    // Queued in order: what was reported first is emitted first, each after the caller returned.
    QMetaObject::invokeMethod(this, std::move(emitIt), Qt::QueuedConnection);
}

void SessionOperation::stop()
{
    if (m_done)
        return;
    if (auto handler = std::exchange(m_stopHandler, {}))
        handler();
    if (!m_done)
        fail(tr("stopped"));
}

void SessionOperation::reportProgress(const QString &step, qint64 done, qint64 total)
{
    if (!m_done)
        later([this, step, done, total] { emit progress(step, done, total); });
}

void SessionOperation::reportOutput(const QString &text)
{
    if (!m_done)
        later([this, text] { emit output(text); });
}

void SessionOperation::reportEvent(const QString &name, const QCborMap &args)
{
    if (!m_done)
        later([this, name, args] { emit event(name, args); });
}

void SessionOperation::finish(const QCborValue &result)
{
    if (std::exchange(m_done, true))
        return;
    later([this, result] {
        emit finished(result);
        deleteLater();
    });
}

void SessionOperation::fail(const QString &error)
{
    if (std::exchange(m_done, true))
        return;
    later([this, error] {
        emit failed(error);
        deleteLater();
    });
}

SessionOperation *SessionOperation::alreadyFailed(const QString &error, QObject *parent)
{
    auto *operation = new SessionOperation(parent);
    operation->fail(error);
    return operation;
}

SessionOperation *SessionOperation::alreadyFinished(const QCborValue &result, QObject *parent)
{
    auto *operation = new SessionOperation(parent);
    operation->finish(result);
    return operation;
}

} // namespace torchdeck
