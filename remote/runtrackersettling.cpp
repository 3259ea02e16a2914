// RunTracker: each polled run's state, progress and message, and the restart policy with its retries.
#include "core/duration.h"
#include "core/runs/launchrequest.h"
#include "core/runs/restartbackoff.h"
#include "core/runs/restartdecision.h"
#include "core/runs/runsettlement.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "core/store/seriescache.h"
#include "remote/connection.h"
#include "remote/runlauncher.h"
#include "remote/runtracker.h"

namespace torchdeck::remote {

void RunTracker::settleRuns(const StepHandle &step)
{
    QStringList settled;
    for (const JobRecord &job : std::as_const(m_jobs)) {
        if (!settled.contains(job.runId)) {
            settled.append(job.runId);
            settleRun(job.runId);
        }
    }
    step.done();
}

void RunTracker::settleRun(const QString &runId)
{
    const auto jobs = m_store->jobs(runId);
    const auto run = m_store->run(runId);
    if (!jobs.ok() || !run.ok() || !run.value || jobs.value.isEmpty())
        return note(!jobs.ok() ? jobs.error : run.error);
    const RunSeries *runSeries = m_series->series(runId);
    const RunInfo info = runSeries ? runSeries->info() : RunInfo{};
    RunSettlement settled =
        torchdeck::settleRun(*run.value, jobs.value, runSeries ? runSeries->progress() : RunProgress{}, info);
    const std::optional<PlannedRestart> restart =
        settled.ended && m_autoRestart ? planRestart(*run.value, jobs.value) : std::nullopt;
    // A run to be restarted is not over: a front waiting for its end sees it requeued until the new job is
    // claimed (pending), not failed in between.
    if (restart)
        settled.state = jobStateName(JobState::Requeued);
    const StoreStatus saved = m_store->updateProgress(runId, settled.state, settled.epochsDone, settled.epochsTotal,
                                                      settled.lastLoss, settled.etaSeconds);
    if (!saved.ok())
        note(saved.error);
    // updateProgress changed the stored record: read it once more, then write the message.
    const auto fresh = m_store->run(runId);
    if (!fresh.ok() || !fresh.value)
        return emit runUpdated(runId);
    RunRecord updated = *fresh.value;
    updated.message = settledMessage(updated.message, info);
    if (updated.message != fresh.value->message) {
        const StoreStatus noted = m_store->updateRun(updated);
        if (!noted.ok())
            note(noted.error);
    }
    if (restart)
        launch(restart->request, restart->reason);
    if (!run.value->hasEnded() && updated.hasEnded())
        emit runEnded(runId, run.value->state);
    emit runUpdated(runId);
}

void RunTracker::takeOverExpiredClaims()
{
    if (!m_connection)
        return;
    const auto claims = m_store->expiredClaims(m_profile.name);
    if (!claims.ok())
        return note(claims.error);
    for (const ExpiredClaim &claim : claims.value) {
        if (m_restarting.contains(claim.runId))
            continue;
        const auto request = launchRequestFromJson(m_profile, claim.request);
        if (!request) {
            note(tr("attempt %1 of run %2 was claimed by %3, which stopped; its request is unreadable")
                     .arg(claim.attempt)
                     .arg(claim.runId.left(8), claim.owner));
            continue;
        }
        // The claim's owner stopped before it recorded a job: the launcher looks for the job, submits if none.
        launch(
            *request,
            tr("attempt %1 taken over from %2, which stopped while submitting it").arg(claim.attempt).arg(claim.owner));
    }
}

void RunTracker::retryRefusedRestarts(const QSet<QString> &tracked)
{
    // A restart the scheduler refused is tried again once its wait is over, unless the run has a job again
    // (restarted elsewhere meanwhile).
    for (const QString &runId : m_retries.due(QDateTime::currentDateTimeUtc(), tracked)) {
        if (!m_restarting.contains(runId))
            reconsider(runId);
    }
}

void RunTracker::reconsider(const QString &runId)
{
    const auto jobs = m_store->jobs(runId);
    const auto run = m_store->run(runId);
    if (m_autoRestart && jobs.ok() && run.ok() && run.value && !jobs.value.isEmpty() &&
        jobs.value.at(speakingJob(jobs.value)).hasEnded())
        considerRestart(*run.value, jobs.value);
    if (!m_restarting.contains(runId))
        m_retries.clear(runId); // not to be restarted after all (switched off, the limit, a job again)
}

void RunTracker::considerRestart(const RunRecord &run, const QList<JobRecord> &jobs)
{
    if (const std::optional<PlannedRestart> restart = planRestart(run, jobs))
        launch(restart->request, restart->reason);
}

std::optional<RunTracker::PlannedRestart> RunTracker::planRestart(const RunRecord &run, const QList<JobRecord> &jobs)
{
    if (m_restarting.contains(run.id) || !m_connection)
        return std::nullopt;
    const JobSpec::FromJson spec = run.spec();
    const RunSeries *runSeries = m_series->series(run.id);
    if (!spec.ok() || !runSeries) {
        note(tr("run %1 was not considered for a restart: %2")
                 .arg(run.id.left(8), spec.ok() ? tr("its metrics are unreadable") : spec.error));
        return std::nullopt;
    }
    const RestartDecision decision =
        decideRestart(spec.spec, jobs, runSeries->info(), m_polled.value(jobs.constLast().jobId));
    if (decision.restart && !run.autoRestart) {
        // Switched off for this run: it says what would have happened, once.
        const QString off = tr("not restarted: automatic restart is off for this run (%1)").arg(decision.reason);
        emit restartDecided(run.id, false, off);
        noteOnRun(run.id, off);
        return std::nullopt;
    }
    if (!decision.restart) {
        if (!decision.reason.isEmpty()) {
            emit restartDecided(run.id, false, decision.reason);
            if (run.message.isEmpty())
                noteOnRun(run.id, decision.reason);
        }
        return std::nullopt;
    }
    QString problem;
    auto request = resumeRequest(*m_store, m_profile, run, ResumeFrom::latest(), {}, &problem);
    if (!request) {
        emit restartDecided(run.id, false, problem);
        note(problem);
        return std::nullopt;
    }
    request->origin = QStringLiteral("restart");
    emit restartDecided(run.id, true, decision.reason);
    return PlannedRestart{std::move(*request), decision.reason};
}

void RunTracker::markRequeued(const QString &runId)
{
    // A run restarted after its end (its switch turned on, a refused restart tried again) is not over either.
    const auto stored = m_store->run(runId);
    if (!stored.ok() || !stored.value || !stored.value->hasEnded())
        return;
    RunRecord updated = *stored.value;
    updated.state = jobStateName(JobState::Requeued);
    if (const StoreStatus saved = m_store->updateRun(updated); !saved.ok())
        note(saved.error);
}

void RunTracker::launch(const LaunchRequest &request, const QString &reason)
{
    const QString runId = request.runId;
    m_restarting.insert(runId);
    markRequeued(runId);
    auto *launcher = new RunLauncher(m_connection, m_store, this);
    connect(launcher, &RunLauncher::failed, this, [this, launcher, runId](const QString &error) {
        launcher->deleteLater();
        m_restarting.remove(runId);
        // Tried again later, waiting longer each time (core/runs/restartbackoff.h).
        const int delay = m_retries.failed(runId, QDateTime::currentDateTimeUtc());
        const QString message =
            tr("restarting run %1 failed: %2; trying again in %3").arg(runId.left(8), error, formatDuration(delay));
        note(message);
        noteOnRun(runId, message);
        emit restartFailed(runId, message);
    });
    connect(launcher, &RunLauncher::handledElsewhere, this, [this, launcher, runId](const QString &) {
        launcher->deleteLater(); // another front on the store restarts it: nothing to do here
        m_restarting.remove(runId);
        m_retries.clear(runId);
        emit runUpdated(runId);
    });
    connect(launcher, &RunLauncher::submitted, this,
            [this, launcher, runId, reason](const QList<LaunchResult> &results) {
                launcher->deleteLater();
                const LaunchResult &result = results.constFirst();
                m_restarting.remove(runId);
                m_retries.clear(runId);
                m_series->forget(runId); // the new attempt changes what is discarded: read it whole again
                noteOnRun(runId, reason);
                emit restarted(runId, result.jobId, reason);
                emit runUpdated(runId);
            });
    launcher->start(request);
}

} // namespace torchdeck::remote
