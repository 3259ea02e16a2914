// RunTracker: the pass's one scheduler poll of every unfinished job, and the attempts of a chain that can
// no longer start, cancelled.
#include "core/jobs/runlayout.h"
#include "core/runs/jobscheduling.h"
#include "core/runs/restartdecision.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "remote/connection.h"
#include "remote/runtracker.h"
#include "remote/schedulerclient.h"

#include <QElapsedTimer>
#include <algorithm>

namespace torchdeck::remote {

void RunTracker::pollJobs(const StepHandle &step)
{
    QString localState;
    if (m_profile.scheduler == SchedulerKind::Local) {
        // Local jobs keep their state under <work>/local: the launcher made it absolute in the run's paths.
        localState = localStateDirectoryOf(m_jobs.constFirst().stdoutPath);
    }
    auto *client = new SchedulerClient(m_connection, m_profile.commands(localState), step.context());
    QElapsedTimer asked;
    asked.start();
    connect(client, &SchedulerClient::failed, step.context(), [this, client, step](const QString &error) {
        client->deleteLater();
        m_pollFailed = true;
        note(error); // without states, still read what the jobs wrote
        step.done();
    });
    connect(client, &SchedulerClient::polled, step.context(), [this, client, step, asked](const JobListResult &result) {
        client->deleteLater();
        m_pollFailed = false;
        m_pollDurationMs = asked.elapsed();
        jobsPolled(result);
        step.done();
    });
    QStringList ids;
    for (const JobRecord &job : std::as_const(m_jobs))
        ids.append(job.jobId);
    client->poll(ids);
}

bool RunTracker::lastPassQuiet() const
{
    return !m_jobsChanged && m_retries.isEmpty() && m_restarting.isEmpty() &&
           std::none_of(m_jobs.cbegin(), m_jobs.cend(),
                        [](const JobRecord &job) { return job.jobState() != JobState::Running; });
}

void RunTracker::jobsPolled(const JobListResult &result)
{
    m_pollComplete = result.ok();
    if (!result.ok())
        note(tr("the scheduler's answer was partly unreadable: ") + result.errorString());
    for (JobRecord &job : m_jobs) {
        const JobInfo *info = result.find(job.jobId);
        if (info)
            m_polled.insert(job.jobId, *info);
        if (!info || info->state == JobState::Unknown)
            continue;
        const QString state = jobStateName(info->state);
        if (state != job.state || info->exitCode != job.exitCode) {
            m_jobsChanged = true;
            const StoreStatus saved = m_store->updateJobState(job.runId, job.attempt, state, info->exitCode);
            if (!saved.ok())
                note(saved.error);
        }
        job.state = state;
        job.exitCode = info->exitCode;
        // Why it waits, when it may start, where it runs, its scheduler's own word for how it ended.
        if (const JobScheduling scheduling = schedulingOf(*info); scheduling != job.scheduling) {
            if (const StoreStatus saved = m_store->updateJobScheduling(job.runId, job.attempt, scheduling); !saved.ok())
                note(saved.error);
            job.scheduling = scheduling;
        }
    }
}

void RunTracker::cancelWaitingInVain(const StepHandle &step)
{
    QStringList runs;
    for (const JobRecord &job : std::as_const(m_jobs)) {
        if (!runs.contains(job.runId))
            runs.append(job.runId);
    }
    QStringList ids;
    for (const QString &runId : std::as_const(runs)) {
        const auto jobs = m_store->jobs(runId);
        if (jobs.ok())
            ids += chainLeftovers(jobs.value, m_polled);
    }
    if (ids.isEmpty() || !m_connection)
        return step.done();
    auto *client = new SchedulerClient(m_connection, m_profile.commands(), step.context());
    connect(client, &SchedulerClient::failed, step.context(), [this, client, step](const QString &error) {
        client->deleteLater();
        note(tr("cancelling attempts that can no longer start: ") + error);
        step.done();
    });
    connect(client, &SchedulerClient::actedOn, step.context(), [this](SchedulerAction, const QString &id) {
        for (JobRecord &job : m_jobs) {
            if (job.jobId != id)
                continue;
            job.state = jobStateName(JobState::Cancelled);
            const StoreStatus saved = m_store->updateJobState(job.runId, job.attempt, job.state, -1);
            if (!saved.ok())
                note(saved.error);
        }
    });
    connect(client, &SchedulerClient::actionDone, step.context(), [client, step] {
        client->deleteLater();
        step.done();
    });
    client->actInTurn(SchedulerAction::Cancel, ids); // each after the one that waits on it
}

} // namespace torchdeck::remote
