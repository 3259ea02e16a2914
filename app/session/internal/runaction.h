#pragma once

#include "core/scheduler/schedulercommands.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

namespace torchdeck {

class ClusterSession;

// Cancel or requeue through the scheduler for runs of one session, then a refresh. Each run's jobs in the order
// given (a chain's newest attempt first: cancelled first, it cannot start when the one before it ends), the runs
// side by side: one command for the first job of every run, then one for the second of those that have one, ...
// Deletes itself after finished or failed.
class RunAction : public QObject {
    Q_OBJECT
public:
    RunAction(ClusterSession *session, SchedulerAction action, QStringList runIds, QList<QStringList> jobIdsByRun,
              SchedulerCommands commands);

    void start();
    SchedulerAction action() const { return m_action; }
    QStringList runIds() const { return m_runIds; }
    QStringList jobIds() const { return m_jobIds; }

signals:
    void finished(const QString &message);
    void failed(const QString &error);

private:
    void act();

    QPointer<ClusterSession> m_session;
    SchedulerAction m_action;
    QStringList m_runIds;
    QStringList m_jobIds;       // all of them
    QList<QStringList> m_turns; // one command each, in turn
    SchedulerCommands m_commands;
};

} // namespace torchdeck
