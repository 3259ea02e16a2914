#include "gui/runactions.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/store/runstore.h"

#include <QMap>
#include <QMessageBox>

namespace torchdeck {

RunActions::RunActions(AgentClient *agent, QWidget *dialogParent)
    : QObject(dialogParent)
    , m_agent(agent)
    , m_dialogParent(dialogParent)
{
}

QStringList RunActions::unfinishedJobs(const QString &runId) const
{
    QStringList ids;
    for (const JobRecord &job : m_agent->store()->jobs(runId).value) {
        if (!job.hasEnded() && !job.jobId.isEmpty())
            ids.append(job.jobId);
    }
    return ids;
}

void RunActions::cancel(const QStringList &runIds)
{
    struct Batch {
        QStringList jobIds;
        QStringList runIds;
    };
    QMap<QString, Batch> byCluster;
    QStringList lines;
    int skipped = 0;
    for (const QString &runId : runIds) {
        const auto run = m_agent->store()->run(runId);
        const QStringList jobs = unfinishedJobs(runId);
        if (!run.ok() || !run.value || jobs.isEmpty()) {
            ++skipped;
            continue;
        }
        Batch &batch = byCluster[run.value->cluster];
        batch.jobIds += jobs;
        batch.runIds.append(runId);
        lines.append(tr("%1 on %2 (job %3)").arg(run.value->name, run.value->cluster, jobs.join(QStringLiteral(", "))));
    }
    if (byCluster.isEmpty())
        return emit message(tr("No selected run has an unfinished job."));
    QString text = tr("Cancel %n run(s)?", nullptr, int(lines.size())) + QStringLiteral("\n\n") + lines.join(u'\n');
    if (skipped > 0)
        text +=
            QStringLiteral("\n\n") + tr("%n selected run(s) have ended and are left as they are.", nullptr, skipped);
    auto *box = new QMessageBox(QMessageBox::Question, tr("Cancel runs"), text, QMessageBox::Yes | QMessageBox::No,
                                m_dialogParent);
    box->setObjectName(QStringLiteral("confirmCancel"));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, byCluster](int result) {
        if (result != QMessageBox::Yes)
            return;
        for (auto it = byCluster.cbegin(); it != byCluster.cend(); ++it)
            send(SchedulerAction::Cancel, it.key(), it.value().runIds);
    });
    box->open();
}

void RunActions::requeue(const QString &runId)
{
    const auto run = m_agent->store()->run(runId);
    if (!run.ok() || !run.value)
        return;
    const QStringList jobs = unfinishedJobs(runId);
    const bool ended = jobs.isEmpty();
    const QString text = ended ? tr("Run %1 has ended, so its job cannot be requeued.\n\nResume it from its latest "
                                    "checkpoint as a new job instead?")
                                     .arg(run.value->name)
                               : tr("Requeue job %1 of run %2 on %3? The scheduler stops it and queues it again; "
                                    "the trainer resumes from its latest checkpoint.")
                                     .arg(jobs.constLast(), run.value->name, run.value->cluster);
    auto *box = new QMessageBox(QMessageBox::Question, ended ? tr("Resume run") : tr("Requeue run"), text,
                                QMessageBox::Yes | QMessageBox::No, m_dialogParent);
    box->setObjectName(ended ? QStringLiteral("confirmResume") : QStringLiteral("confirmRequeue"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    const QString cluster = run.value->cluster;
    const QString current = ended ? QString() : jobs.constLast();
    connect(box, &QMessageBox::finished, this, [this, runId, cluster, current](int result) {
        if (result != QMessageBox::Yes)
            return;
        if (current.isEmpty())
            emit resumeOffered(runId);
        else
            send(SchedulerAction::Requeue, cluster, {runId});
    });
    box->open();
}

void RunActions::send(SchedulerAction action, const QString &cluster, const QStringList &runIds)
{
    SessionOperation *sent = action == SchedulerAction::Cancel ? m_agent->cancel(cluster, runIds)
                                                               : m_agent->requeue(cluster, runIds.value(0));
    const QString what = action == SchedulerAction::Cancel ? tr("Cancelling") : tr("Requeueing");
    connect(sent, &SessionOperation::finished, this, [this, action, cluster, runIds] {
        emit message(action == SchedulerAction::Cancel
                         ? tr("Cancelled %n run(s) on %1.", nullptr, int(runIds.size())).arg(cluster)
                         : tr("Requeued the job on %1.").arg(cluster));
        emit actionDone(action, cluster, runIds);
    });
    connect(sent, &SessionOperation::failed, this, [this, what, cluster](const QString &error) {
        emit message(tr("%1 on %2 failed: %3").arg(what, cluster, error));
    });
}

} // namespace torchdeck
