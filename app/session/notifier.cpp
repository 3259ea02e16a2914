#include "session/notifier.h"

#include "core/appidentity.h"

#include <QCoreApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QProcess>

namespace torchdeck {

namespace {
Q_LOGGING_CATEGORY(lcNotify, "torchdeck.notify")

const QString kService = QStringLiteral("org.freedesktop.Notifications");
const QString kPath = QStringLiteral("/org/freedesktop/Notifications");
const QString kInterface = QStringLiteral("org.freedesktop.Notifications");
const QString kOpenAction = QStringLiteral("default");
} // namespace

Notifier::Notifier(QObject *parent)
    : QObject(parent)
{
}

void Notifier::notify(const RunNotice &notice, const QString &notifyCommand)
{
    qCInfo(lcNotify).noquote() << notice.event() << notice.runId.left(8) << notice.body();
    toDesktop(notice);
    if (!notifyCommand.trimmed().isEmpty())
        toCommand(notice, notifyCommand);
}

void Notifier::toDesktop(const RunNotice &notice)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return; // a login node, a container: the terminal and notify_command still tell
    if (!m_listening)
        m_listening = bus.connect(kService, kPath, kInterface, QStringLiteral("ActionInvoked"), this,
                                  SLOT(actionInvoked(uint, QString)));
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface, QStringLiteral("Notify"));
    const bool failed = notice.kind == RunNotice::Kind::Failed || notice.kind == RunNotice::Kind::RestartFailed;
    const QVariantMap hints{{QStringLiteral("desktop-entry"), desktopFileName()},
                            {QStringLiteral("urgency"), QVariant::fromValue(uchar(failed ? 2 : 1))}};
    call << QStringLiteral("torchdeck") << uint(0) << desktopFileName() << notice.title() << notice.body()
         << QStringList{kOpenAction, tr("Open run")} << hints << int(-1);
    auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(call), this);
    const QString runId = notice.runId;
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, runId](QDBusPendingCallWatcher *done) {
        done->deleteLater();
        const QDBusPendingReply<uint> reply = *done;
        if (reply.isError())
            qCInfo(lcNotify).noquote() << "no desktop notification:" << reply.error().message();
        else
            m_runs.insert(reply.value(), runId);
    });
}

void Notifier::actionInvoked(uint id, const QString &action)
{
    const QString runId = m_runs.value(id);
    if (runId.isEmpty() || action != kOpenAction)
        return;
    // The window, showing the run (`torchdeck --run ID`), started apart from the agent.
    if (!QProcess::startDetached(QCoreApplication::applicationFilePath(), {QStringLiteral("--run"), runId}))
        qCInfo(lcNotify) << "could not open the window for run" << runId.left(8);
}

void Notifier::toCommand(const RunNotice &notice, const QString &command)
{
    auto *process = new QProcess(this);
    process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process->setStandardOutputFile(QProcess::nullDevice());
    connect(process, &QProcess::finished, this, [process, command](int code, QProcess::ExitStatus status) {
        process->deleteLater();
        if (status != QProcess::NormalExit || code != 0)
            qCInfo(lcNotify).noquote() << "notify_command" << command << "ended with exit code" << code;
    });
    connect(process, &QProcess::errorOccurred, this, [process, command](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            qCInfo(lcNotify).noquote() << "notify_command" << command << "did not start:" << process->errorString();
            process->deleteLater();
        }
    });
    process->start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), command});
    process->write(QJsonDocument(notice.toJson()).toJson(QJsonDocument::Compact) + '\n');
    process->closeWriteChannel();
}

} // namespace torchdeck
