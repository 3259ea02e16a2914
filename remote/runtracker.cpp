#include "remote/runtracker.h"

#include "core/duration.h"
#include "core/jobs/runlayout.h"
#include "core/metrics/logmetrics.h"
#include "core/metrics/metricsreader.h"
#include "core/remotepath.h"
#include "core/runs/launchrequest.h"
#include "core/runs/restartdecision.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "core/store/seriescache.h"
#include "remote/connection.h"
#include "remote/runlauncher.h"
#include "remote/schedulerclient.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck::remote {

namespace {
constexpr int firstRetryDelaySeconds = 30;
constexpr int maxRetryDelaySeconds = 30 * 60;

bool isUnfinished(const JobRecord &job)
{
    return !isFinal(jobStateFromName(job.state));
}
} // namespace

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
    m_pass.add({{}, {}, [this](const StepHandle &step) { readAllMetrics(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { cancelWaitingInVain(step); }});
    m_pass.add({{}, {}, [this](const StepHandle &step) { settleRuns(step); }});
    connect(&m_pass, &StepSequence::finished, this, [this] { emit refreshed(m_problems.join(QStringLiteral("; "))); });
    connect(&m_pass, &StepSequence::failed, this, &RunTracker::failed);
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
            if (run.value)
                runs.append(*run.value);
        }
    }
    m_runs.clear();
    m_logPatterns.clear();
    m_loggerFilesRead.clear();
    QSet<QString> tracked;
    for (const RunRecord &run : std::as_const(runs)) {
        m_runs.append(run.id);
        const JobSpec::FromJson spec = JobSpec::fromJson(QJsonDocument::fromJson(run.specJson.toUtf8()).object());
        if (spec.ok() && spec.spec.commandKind == CommandKind::Custom)
            m_logPatterns.insert(run.id, spec.spec.logPatterns);
        const auto jobs = m_store->jobs(run.id);
        if (!jobs.ok())
            return step.fail(jobs.error);
        for (const JobRecord &job : jobs.value) {
            // A claim without a job id yet is a submission in flight (or one to take over below): nothing to poll.
            if (isUnfinished(job) && !job.jobId.isEmpty()) {
                m_jobs.append(job);
                tracked.insert(run.id);
            }
        }
    }
    noticeChangesFromElsewhere(runs, tracked);
    takeOverExpiredClaims();
    retryRefusedRestarts(tracked);
    if (m_jobs.isEmpty())
        return step.doneAll();
    if (!m_connection) {
        note(tr("no connection"));
        return step.doneAll();
    }
    step.done();
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

void RunTracker::pollJobs(const StepHandle &step)
{
    QString localState;
    if (m_profile.scheduler == SchedulerKind::Local) {
        // Local jobs keep their state under <work>/local: the launcher made it absolute in the run's paths.
        localState = localStateDirectoryOf(m_jobs.constFirst().stdoutPath);
    }
    auto *client = new SchedulerClient(m_connection, m_profile.commands(localState), step.context());
    connect(client, &SchedulerClient::failed, step.context(), [this, client, step](const QString &error) {
        client->deleteLater();
        note(error); // without states, still read what the jobs wrote
        step.done();
    });
    connect(client, &SchedulerClient::polled, step.context(), [this, client, step](const JobListResult &result) {
        client->deleteLater();
        jobsPolled(result);
        step.done();
    });
    QStringList ids;
    for (const JobRecord &job : std::as_const(m_jobs))
        ids.append(job.jobId);
    client->poll(ids);
}

void RunTracker::jobsPolled(const JobListResult &result)
{
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
            const StoreStatus saved = m_store->updateJobState(job.runId, job.attempt, state, info->exitCode);
            if (!saved.ok())
                note(saved.error);
        }
        job.state = state;
        job.exitCode = info->exitCode;
    }
}

void RunTracker::readAllMetrics(const StepHandle &step)
{
    // A job's metrics file, a custom command's logger files, then its log: the log fills only the series the
    // files lack (RunSeries), so the files come first.
    const std::function<void()> read = afterAll(int(m_jobs.size()), [step] { step.done(); });
    for (const JobRecord &job : std::as_const(m_jobs))
        readMetrics(job, [this, job, read] { readLoggerFiles(job, [this, job, read] { readLog(job, read); }); });
}

void RunTracker::readLog(const JobRecord &job, const std::function<void()> &done)
{
    if (!m_logPatterns.contains(job.runId) || job.stdoutPath.isEmpty())
        return done();
    readTail(job.stdoutPath, job.offsets.stdoutOffset, done,
             [this, job](const QByteArray &bytes) { logRead(job, bytes); });
}

void RunTracker::readTail(const QString &file, qint64 offset, const std::function<void()> &done,
                          const std::function<void(const QByteArray &)> &take)
{
    if (!m_connection)
        return done();
    // All of it: a job that ended is not read again.
    const QString command =
        QStringLiteral("if test -f %1; then tail -c +%2 %1; fi").arg(remotePathExpression(file)).arg(offset + 1);
    RemoteCommand *run = m_connection->run(command);
    connect(run, &RemoteCommand::failed, &m_pass, [this, file, done](const QString &error) {
        note(tr("reading %1: %2").arg(file, error));
        done();
    });
    connect(run, &RemoteCommand::finished, &m_pass, [this, file, done, take](const ExecResult &result) {
        if (result.exitCode != 0)
            note(tr("reading %1: %2").arg(file, QString::fromUtf8(result.err.trimmed())));
        else
            take(result.out);
        done();
    });
}

void RunTracker::logRead(const JobRecord &job, const QByteArray &bytes)
{
    const bool ended = isFinal(jobStateFromName(job.state));
    MetricsReader reader(MetricsReader::Format::LogPatterns, job.offsets.stdoutOffset);
    // The job's own patterns, then the cluster's, then the built-in ones.
    const QStringList own = m_logPatterns.value(job.runId) + m_profile.logPatterns;
    if (const QString problem = reader.patterns().setPatterns(jobLogPatterns(own)); !problem.isEmpty())
        return noteOnRun(job.runId, tr("log patterns: %1").arg(problem));
    const RunSeries *cached = m_series->series(job.runId);
    LogProgress progress = cached ? logProgressOf(*cached, job.attempt) : LogProgress{};
    resumeLogParser(&reader.patterns(), progress);
    QList<MetricEvent> events = reader.feed(bytes);
    if (ended)
        events += reader.finish(); // a last line without its newline
    if (reader.offset() == job.offsets.stdoutOffset)
        return;
    events = firstOfEachRank(events, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0, &progress);
    for (MetricEvent &event : events)
        event.source = MetricSource::Log; // fills only the series no file has (RunSeries)
    storeEvents(job.runId, job.attempt, events, [&] {
        return m_store->appendMetrics(job.runId, job.attempt, events, job.offsets.stdoutOffset, reader.offset(),
                                      RunStore::TailedFile::Stdout);
    });
}

void RunTracker::readMetrics(const JobRecord &job, const std::function<void()> &done)
{
    if (job.metricsPath.isEmpty())
        return done();
    readTail(job.metricsPath, job.offsets.metricsOffset, done,
             [this, job](const QByteArray &bytes) { metricsRead(job, bytes); });
}

void RunTracker::metricsRead(const JobRecord &job, const QByteArray &bytes)
{
    MetricsReader reader(MetricsReader::Format::JsonLines, job.offsets.metricsOffset);
    const QList<MetricEvent> events = reader.feed(bytes);
    if (reader.offset() == job.offsets.metricsOffset)
        return;
    if (reader.counts().malformed > 0)
        note(tr("%1: %2 malformed line(s) skipped").arg(job.metricsPath).arg(reader.counts().malformed));
    storeEvents(job.runId, job.attempt, events, [&] {
        return m_store->appendMetrics(job.runId, job.attempt, events, job.offsets.metricsOffset, reader.offset(),
                                      RunStore::TailedFile::Metrics);
    });
}

void RunTracker::storeEvents(const QString &runId, int attempt, const QList<MetricEvent> &events,
                             const std::function<StoreResult<bool>()> &append)
{
    // Cached before the append: a series first read from the store afterwards would hold these events already.
    m_series->series(runId);
    const StoreResult<bool> saved = append();
    if (!saved.ok())
        return note(saved.error);
    if (!saved.value) {
        // Another front on this store stored these lines first: what is cached is read again from the store.
        m_series->forget(runId);
        return emit seriesReset(runId);
    }
    for (const MetricEvent &event : events) {
        if (event.kind != MetricEventKind::Checkpoint)
            continue;
        CheckpointRecord checkpoint{runId,       event.path, attempt, event.epoch, event.step,
                                    event.bytes, event.time, true,    false,       event.reason};
        const StoreStatus stored = m_store->saveCheckpoint(checkpoint);
        if (!stored.ok())
            note(stored.error);
    }
    m_series->apply(runId, attempt, events);
    if (!events.isEmpty())
        emit metricsArrived(runId, attempt, events);
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
    cancelNext(ids, step);
}

void RunTracker::cancelNext(QStringList ids, const StepHandle &step)
{
    if (ids.isEmpty() || !m_connection)
        return step.done();
    const QString id = ids.takeFirst();
    auto *client = new SchedulerClient(m_connection, m_profile.commands(), step.context());
    connect(client, &SchedulerClient::failed, step.context(), [this, client, step](const QString &error) {
        client->deleteLater();
        note(tr("cancelling attempts that can no longer start: ") + error);
        step.done();
    });
    connect(client, &SchedulerClient::actionDone, step.context(), [this, client, id, ids, step] {
        client->deleteLater();
        for (JobRecord &job : m_jobs) {
            if (job.jobId != id)
                continue;
            job.state = jobStateName(JobState::Cancelled);
            const StoreStatus saved = m_store->updateJobState(job.runId, job.attempt, job.state, -1);
            if (!saved.ok())
                note(saved.error);
        }
        cancelNext(ids, step); // one at a time, each after the one that waits on it
    });
    client->act(SchedulerAction::Cancel, {id});
}

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
    // Not simply the newest job: attempts submitted up front wait behind the one that runs.
    const JobRecord &latest = jobs.value.at(speakingJob(jobs.value));
    const RunSeries *runSeries = m_series->series(runId);
    RunProgress progress = runSeries ? runSeries->progress() : RunProgress{};
    // The submitted --epochs wins: until a resumed attempt's start event arrives the series still has the old total.
    const qint64 total = run.value->epochsTotal >= 0 ? run.value->epochsTotal : progress.epochsTotal;
    const bool ended = isFinal(jobStateFromName(latest.state));
    // PBS wrappers call every ended job completed; the trainer's stop event knows better.
    const bool trainerFailed = runSeries && runSeries->info().stopped && runSeries->info().exitCode != 0;
    const QString state = ended && trainerFailed && latest.state == jobStateName(JobState::Completed)
                              ? jobStateName(JobState::Failed)
                              : latest.state;
    const StoreStatus saved = m_store->updateProgress(runId, state, progress.epochsDone, total, progress.lastLoss,
                                                      ended ? kNoValue : progress.etaSeconds);
    if (!saved.ok())
        note(saved.error);
    // updateProgress changed the stored record: read it once more, then write the messages in one go.
    const auto fresh = m_store->run(runId);
    if (!fresh.ok() || !fresh.value)
        return emit runUpdated(runId);
    RunRecord updated = *fresh.value;
    if (runSeries && runSeries->info().stopped && runSeries->info().stopReason == u"error")
        updated.message = runSeries->info().stopMessage;
    if (runSeries && runSeries->info().resumeSkipped > 0) {
        // The trainer fell back to an older checkpoint: the run must say so, or the lost steps look like a bug.
        const QString warning = tr("warning: resumed from %1; %2 newer checkpoint(s) were torn or corrupt")
                                    .arg(runSeries->info().resumedFrom.section(u'/', -1))
                                    .arg(runSeries->info().resumeSkipped);
        if (!updated.message.contains(warning))
            updated.message = updated.message.isEmpty() ? warning : updated.message + QStringLiteral("; ") + warning;
    }
    if (updated.message != fresh.value->message) {
        const StoreStatus noted = m_store->updateRun(updated);
        if (!noted.ok())
            note(noted.error);
    }
    if (ended && m_autoRestart)
        considerRestart(updated, jobs.value);
    emit runUpdated(runId);
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
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const QStringList refused = m_retries.keys();
    for (const QString &runId : refused) {
        if (tracked.contains(runId)) {
            m_retries.remove(runId);
            continue;
        }
        if (m_retries.value(runId).next <= now && !m_restarting.contains(runId))
            reconsider(runId);
    }
}

void RunTracker::reconsider(const QString &runId)
{
    const auto jobs = m_store->jobs(runId);
    const auto run = m_store->run(runId);
    if (m_autoRestart && jobs.ok() && run.ok() && run.value && !jobs.value.isEmpty() &&
        isFinal(jobStateFromName(jobs.value.at(speakingJob(jobs.value)).state)))
        considerRestart(*run.value, jobs.value);
    if (!m_restarting.contains(runId))
        m_retries.remove(runId); // not to be restarted after all (switched off, the limit, a job again)
}

void RunTracker::considerRestart(const RunRecord &run, const QList<JobRecord> &jobs)
{
    if (m_restarting.contains(run.id) || !m_connection)
        return;
    const JobSpec::FromJson spec = JobSpec::fromJson(QJsonDocument::fromJson(run.specJson.toUtf8()).object());
    const RunSeries *runSeries = m_series->series(run.id);
    if (!spec.ok() || !runSeries)
        return;
    const RestartDecision decision =
        decideRestart(spec.spec, jobs, runSeries->info(), m_polled.value(jobs.constLast().jobId));
    if (decision.restart && !run.autoRestart) {
        // Switched off for this run: it says what would have happened, once.
        const QString off = tr("not restarted: automatic restart is off for this run (%1)").arg(decision.reason);
        if (run.message != off) {
            RunRecord updated = run;
            updated.message = off;
            if (const StoreStatus saved = m_store->updateRun(updated); !saved.ok())
                note(saved.error);
        }
        return;
    }
    if (!decision.restart) {
        if (!decision.reason.isEmpty() && run.message.isEmpty()) {
            RunRecord updated = run;
            updated.message = decision.reason;
            if (const StoreStatus saved = m_store->updateRun(updated); !saved.ok())
                note(saved.error);
        }
        return;
    }
    QString problem;
    const auto request = resumeRequest(*m_store, m_profile, run, QStringLiteral("auto"), {}, &problem);
    if (!request)
        return note(problem);
    launch(*request, decision.reason);
}

void RunTracker::launch(const LaunchRequest &request, const QString &reason)
{
    const QString runId = request.runId;
    m_restarting.insert(runId);
    auto *launcher = new RunLauncher(m_connection, m_store, this);
    connect(launcher, &RunLauncher::failed, this, [this, launcher, runId](const QString &error) {
        launcher->deleteLater();
        m_restarting.remove(runId);
        // Tried again later, waiting longer each time: a refusal (a full queue, a quota) rarely clears at once.
        const int delay = m_retries.contains(runId) ? std::min(m_retries[runId].delaySeconds * 2, maxRetryDelaySeconds)
                                                    : firstRetryDelaySeconds;
        m_retries[runId] = {QDateTime::currentDateTimeUtc().addSecs(delay), delay};
        const QString message =
            tr("restarting run %1 failed: %2; trying again in %3").arg(runId.left(8), error, formatDuration(delay));
        note(message);
        noteOnRun(runId, message);
        emit restartFailed(runId, message);
    });
    connect(launcher, &RunLauncher::handledElsewhere, this, [this, launcher, runId](const QString &) {
        launcher->deleteLater(); // another front on the store restarts it: nothing to do here
        m_restarting.remove(runId);
        m_retries.remove(runId);
        emit runUpdated(runId);
    });
    connect(launcher, &RunLauncher::submitted, this, [this, launcher, runId, reason](const LaunchResult &result) {
        launcher->deleteLater();
        m_restarting.remove(runId);
        m_retries.remove(runId);
        m_series->forget(runId); // the new attempt changes what is discarded: read it whole again
        const auto stored = m_store->run(runId);
        if (stored.ok() && stored.value) {
            RunRecord updated = *stored.value;
            updated.message = reason;
            if (const StoreStatus saved = m_store->updateRun(updated); !saved.ok())
                note(saved.error);
        }
        emit restarted(runId, result.jobId, reason);
        emit runUpdated(runId);
    });
    launcher->start(request);
}

} // namespace torchdeck::remote
