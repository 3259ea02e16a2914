// RunTracker: the stall alarm (core/runs/stallcheck.h) and jobs kept waiting past the profile's limit. A running job's
// files growing is its sign of life; a run that shows none for longer than its threshold is noted as stalled once, with
// the rank that holds the others up where the trainer's heartbeats say so, and told (runStalled) for the agent's
// notice.
#include "core/runs/jobscheduling.h"
#include "core/runs/stallcheck.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "core/store/seriescache.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

namespace torchdeck::remote {

namespace {
double nowSeconds()
{
    return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}
} // namespace

void RunTracker::markActive(const QString &runId)
{
    m_activity.insert(runId, nowSeconds());
}

void RunTracker::watchStalls(const StepHandle &step)
{
    QList<JobRecord> running; // one job per run runs at a time; a chain's next one waits
    QSet<QString> runIds;
    for (const JobRecord &job : std::as_const(m_jobs)) {
        runIds.insert(job.runId);
        const auto polled = m_polled.constFind(job.jobId);
        if (polled == m_polled.cend())
            continue;
        if (polled->state == JobState::Running)
            running.append(job);
        // Kept waiting by the scheduler past the profile's limit: told once per job.
        JobRecord now = job;
        now.state = jobStateName(polled->state);
        now.scheduling = schedulingOf(*polled);
        if (!m_toldWaiting.contains(job.jobId) &&
            waitedPastLimit(now, QDateTime::currentDateTimeUtc(), m_profile.waitNoticeSeconds)) {
            m_toldWaiting.insert(job.jobId);
            emit runWaiting(job.runId, job.jobId);
        }
        askToMove(now);
    }
    for (const QString &runId : std::as_const(runIds)) {
        if (std::none_of(running.cbegin(), running.cend(), [&](const JobRecord &job) { return job.runId == runId; })) {
            m_activity.remove(runId); // counted from its start on, once it runs (again)
            m_stalled.remove(runId);
        }
    }
    for (const JobRecord &job : std::as_const(running)) {
        if (!m_activity.contains(job.runId)) {
            markActive(job.runId);
            continue;
        }
        const auto run = m_store->run(job.runId);
        if (!run.ok() || !run.value)
            continue;
        const JobSpec::FromJson spec = run.value->spec();
        const RunSeries *series = m_series->series(job.runId);
        const StallThreshold threshold =
            series ? stallThreshold(*series, spec.ok() ? spec.spec.stallSeconds : 0) : StallThreshold{};
        const double quiet = nowSeconds() - m_activity.value(job.runId);
        const bool stalled = MetricEvent::has(threshold.seconds) && quiet > threshold.seconds;
        if (stalled && !m_stalled.contains(job.runId)) {
            m_stalled.insert(job.runId);
            nameStall(job, quiet, threshold);
        } else if (!stalled && m_stalled.remove(job.runId)) {
            noteStall(job.runId, {});
        }
    }
    step.done();
}

void RunTracker::askToMove(const JobRecord &job)
{
    const QDateTime at = QDateTime::currentDateTimeUtc();
    if (!restartWaitedToMove(job, at, 1)) // a waiting restart at all: the run is read only for those
        return;
    const auto run = m_store->run(job.runId);
    if (!run.ok() || !run.value)
        return;
    const JobSpec::FromJson spec = run.value->spec();
    const int after = spec.ok() ? spec.spec.moveAfterSeconds : 0;
    const auto asked = m_moveAsked.constFind(job.jobId);
    if (!restartWaitedToMove(job, at, after) || (asked != m_moveAsked.cend() && asked->secsTo(at) < after))
        return;
    m_moveAsked.insert(job.jobId, at);
    emit moveDue(job.runId, job.jobId);
}

void RunTracker::nameStall(const JobRecord &job, double quiet, const StallThreshold &threshold)
{
    const QString runId = job.runId;
    if (!m_connection || job.metricsPath.isEmpty())
        return noteStall(runId, stallMessage(quiet, threshold, {}));
    RemoteCommand *read = m_connection->run(rankHeartbeatCommand(job.metricsPath));
    connect(read, &RemoteCommand::failed, this,
            [this, runId, quiet, threshold](const QString &) { noteStall(runId, stallMessage(quiet, threshold, {})); });
    connect(read, &RemoteCommand::finished, this, [this, runId, quiet, threshold](const ExecResult &result) {
        noteStall(runId, stallMessage(quiet, threshold, hangingRanks(parseRankHeartbeats(result.out))));
    });
}

void RunTracker::noteStall(const QString &runId, const QString &message)
{
    const auto run = m_store->run(runId);
    if (!run.ok() || !run.value)
        return;
    RunRecord updated = *run.value;
    if (message.isEmpty() && !isStallMessage(updated.message))
        return;
    updated.message = message;
    if (const StoreStatus saved = m_store->updateRun(updated); !saved.ok())
        return note(saved.error);
    if (!message.isEmpty())
        emit runStalled(runId, message);
    emit runUpdated(runId);
}

} // namespace torchdeck::remote
