#pragma once

#include "core/scheduler/schedulercommands.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

namespace torchdeck {

class ClusterSession;

// Cancel or requeue through the scheduler for runs of one session: the jobs one at a time in the given
// order (a chain's newest attempt first), then a refresh. Deletes itself after finished or failed.
class RunAction : public QObject {
    Q_OBJECT
public:
    RunAction(ClusterSession *session, SchedulerAction action, QStringList runIds, QStringList jobIds,
              SchedulerCommands commands);

    void start();
    SchedulerAction action() const { return m_action; }
    QStringList runIds() const { return m_runIds; }
    QStringList jobIds() const { return m_jobIds; }

signals:
    void finished(const QString &message);
    void failed(const QString &error);

private:
    void act(); // one job at a time, in the order given

    QPointer<ClusterSession> m_session;
    SchedulerAction m_action;
    QStringList m_runIds;
    QStringList m_jobIds;
    SchedulerCommands m_commands;
};

} // namespace torchdeck
