#pragma once

#include "core/runs/runnotice.h"

#include <QHash>
#include <QObject>

namespace torchdeck {

// The agent's voice when no window may be open: each RunNotice goes to the desktop's notification server
// (org.freedesktop.Notifications on the session bus, with the app's desktop entry; its action opens the run
// in the window) and to the profile's notify_command, which gets the notice as JSON on stdin (for chat or
// mail). What fails is logged, never fatal: a login node has no session bus.
class Notifier : public QObject {
    Q_OBJECT
public:
    explicit Notifier(QObject *parent = nullptr);

    void notify(const RunNotice &notice, const QString &notifyCommand);

private Q_SLOTS:
    void actionInvoked(uint id, const QString &action);

private:
    void toDesktop(const RunNotice &notice);
    void toCommand(const RunNotice &notice, const QString &command);

    bool m_listening = false;
    QHash<uint, QString> m_runs; // the desktop's notification id -> run id, for its action
};

} // namespace torchdeck
