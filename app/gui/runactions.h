#pragma once

#include "core/scheduler/schedulercommands.h"

#include <QObject>
#include <QPointer>
#include <QWidget>

namespace torchdeck {

class AgentClient;

// What is done to runs through their scheduler, asked once and sent once per cluster: cancel any number of
// runs (their unfinished jobs), requeue a run's current job. A run that has ended cannot be requeued: the
// user is offered to resume it from its latest checkpoint instead (resumeOffered).
class RunActions : public QObject {
    Q_OBJECT
public:
    RunActions(AgentClient *agent, QWidget *dialogParent);

    // Asks once for all of them; runs without an unfinished job are left out (said in message()).
    void cancel(const QStringList &runIds);
    void requeue(const QString &runId);
    // The unfinished jobs of a run, from the store.
    QStringList unfinishedJobs(const QString &runId) const;

signals:
    void message(const QString &text);
    void actionDone(torchdeck::SchedulerAction action, const QString &cluster, const QStringList &runIds);
    void resumeOffered(const QString &runId); // the user accepted a resume of this ended run

private:
    void send(SchedulerAction action, const QString &cluster, const QStringList &runIds);

    AgentClient *m_agent;
    QPointer<QWidget> m_dialogParent;
};

} // namespace torchdeck
