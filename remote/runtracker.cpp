#include "remote/runtracker.h"

#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "core/store/seriescache.h"
#include "remote/connection.h"
#include "remote/remoteoperations.h"

namespace torchdeck::remote {

RunTracker::RunTracker(Connection *connection, ClusterProfile profile, RunStore *store, RunSeriesCache *series,
                       QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_profile(std::move(profile))
    , m_store(store)
    , m_series(series)
{
    qRegisterMetaType<QList<MetricEvent>>();
    // A pass goes on past a problem of one run or job (noted, reported with refreshed); only the store
    // failing ends it.
    m_pass.add({{}, {}, [this](const StepHandle &step) { collect(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { pollJobs(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { settleForgottenJobs(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { findLoggerFiles(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { readAllMetrics(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { cancelWaitingInVain(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { settleRuns(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { watchStalls(step); }});
    // Last: an ended job's logs may be long to read, and restarts come first.
    m_pass.add({{}, {}, [this](const StepHandle &step) { keepEndedLogs([step] { step.done(); }); }});
    connect(&m_pass, &StepSequence::finished, this, [this] { emit refreshed(m_problems.join(QStringLiteral("; "))); });
    connect(&m_pass, &StepSequence::failed, this, &RunTracker::failed);
}

RunTracker::~RunTracker()
{
    for (const FollowedFile &file : std::as_const(m_followed)) {
        if (file.tail)
            file.tail->stop();
    }
}

void RunTracker::note(const QString &problem)
{
    m_problems.append(problem);
}

void RunTracker::refresh(const QStringList &runIds)
{
    if (m_pass.isRunning())
        return;
    m_problems.clear();
    m_runs = runIds;
    m_wholePass = runIds.isEmpty();
    m_pollFailed = false;
    m_pollComplete = false;
    m_pollDurationMs = 0;
    m_jobsChanged = false;
    m_jobs.clear();
    m_polled.clear();
    m_pass.start();
}

void RunTracker::collect(const StepHandle &step)
{
    QList<RunRecord> runs;
    if (m_runs.isEmpty()) {
        const auto all = m_store->runs(m_profile.name);
        if (!all.ok())
            return step.fail(all.error);
        runs = all.value;
    } else {
        for (const QString &runId : std::as_const(m_runs)) {
            const auto run = m_store->run(runId);
            if (!run.ok())
                return step.fail(run.error);
            // A run continued on another cluster (`resume --on`) is that cluster's to follow from now on.
            if (run.value && run.value->cluster == m_profile.name)
                runs.append(*run.value);
        }
    }
    m_runs.clear();
    m_logPatterns.clear();
    m_loggerFilesRead.clear();
    m_loggerFilesFound.clear();
    QSet<QString> tracked;
    QStringList requeued; // runs settled as requeued whose next attempt is not (yet) claimed
    for (const RunRecord &run : std::as_const(runs)) {
        m_runs.append(run.id);
        const JobSpec::FromJson spec = run.spec();
        if (spec.ok() && spec.spec.commandKind == CommandKind::Custom)
            m_logPatterns.insert(run.id, spec.spec.logPatterns);
        const auto jobs = m_store->jobs(run.id);
        if (!jobs.ok())
            return step.fail(jobs.error);
        bool claimed = false;
        for (const JobRecord &job : jobs.value) {
            // A claim without a job id yet is a submission in flight (or one to take over below): nothing to poll.
            // A job of another cluster (a moved restart's, cancelled there) is not this scheduler's to ask.
            const bool here = job.cluster.isEmpty() || job.cluster == m_profile.name;
            if (!here && !job.hasEnded() && !job.jobId.isEmpty())
                tellLeftBehind(job);
            if (!job.hasEnded() && !job.jobId.isEmpty() && here) {
                m_jobs.append(job);
                tracked.insert(run.id);
            }
            if (job.hasEnded() && here)
                noteLogsToKeep(run, job);
            claimed = claimed || (!job.hasEnded() && job.jobId.isEmpty());
        }
        if (run.jobState() == JobState::Requeued && !tracked.contains(run.id) && !claimed)
            requeued.append(run.id);
    }
    noticeChangesFromElsewhere(runs, tracked);
    takeOverExpiredClaims();
    retryRefusedRestarts(tracked);
    settleUnclaimedRestarts(requeued);
    if (m_jobs.isEmpty()) {
        // Nothing to poll, but logs may be left to keep: a read lost with the connection, or an agent that stopped
        // between a job's end and its keep. Only over a connection that is up: this alone does not reconnect.
        if (!m_logsToKeep.isEmpty() && m_connection && m_connection->state() == ConnectionState::Connected)
            return keepEndedLogs([step] { step.doneAll(); });
        return step.doneAll();
    }
    if (!m_connection) {
        note(tr("no connection"));
        return step.doneAll();
    }
    step.done();
}

void RunTracker::tellLeftBehind(const JobRecord &job)
{
    constexpr qint64 againSeconds = 300; // a cancel that failed is tried again, not at every pass
    const QString key = job.cluster + u' ' + job.jobId;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (const auto told = m_toldLeftBehind.constFind(key);
        told != m_toldLeftBehind.cend() && told->secsTo(now) < againSeconds)
        return;
    m_toldLeftBehind.insert(key, now);
    emit leftBehind(job.runId, job.jobId, job.cluster);
}

void RunTracker::settleUnclaimedRestarts(const QStringList &runIds)
{
    // Settled to be restarted, but whoever settled it stopped before claiming the next attempt: decided again
    // here (restarted, or settled as its last job ended if the policy says no now).
    for (const QString &runId : runIds) {
        if (m_connection && !m_restarting.contains(runId) && !m_retries.contains(runId))
            settleRun(runId);
    }
}

void RunTracker::noticeChangesFromElsewhere(const QList<RunRecord> &runs, const QSet<QString> &tracked)
{
    // Another front on the store may have settled a run this one no longer polls (it ended there first):
    // the fronts of this one hear of it, and read its series again.
    for (const RunRecord &run : runs) {
        const auto seen = m_seenUpdates.constFind(run.id);
        const bool changed = seen != m_seenUpdates.cend() && *seen != run.updated;
        m_seenUpdates.insert(run.id, run.updated);
        if (changed && !tracked.contains(run.id) && !m_restarting.contains(run.id)) {
            m_series->forget(run.id);
            emit seriesReset(run.id);
            emit runUpdated(run.id);
        }
    }
}

void RunTracker::noteOnRun(const QString &runId, const QString &message)
{
    const auto stored = m_store->run(runId);
    if (!stored.ok() || !stored.value || stored.value->message == message)
        return;
    RunRecord updated = *stored.value;
    updated.message = message;
    if (const StoreStatus saved = m_store->updateRun(updated); !saved.ok())
        note(saved.error);
}

} // namespace torchdeck::remote
