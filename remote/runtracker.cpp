#include "remote/runtracker.h"

#include "core/jobs/runlayout.h"
#include "core/metrics/metricsreader.h"
#include "core/scheduler/jobstate.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "remote/connection.h"
#include "remote/remotepath.h"
#include "remote/restartdecision.h"
#include "remote/resumerequest.h"
#include "remote/schedulerclient.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck::remote {

namespace {
bool isUnfinished(const JobRecord &job)
{
    return !isFinal(jobStateFromName(job.state));
}
} // namespace

RunTracker::RunTracker(Connection *connection, ClusterProfile profile, RunStore *store, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_profile(std::move(profile))
    , m_store(store)
{
    qRegisterMetaType<QList<MetricEvent>>();
}

const RunSeries *RunTracker::series(const QString &runId)
{
    auto it = m_series.find(runId);
    if (it == m_series.end()) {
        const StoreResult<RunSeries> stored = m_store->runSeries(runId);
        if (!stored.ok())
            return nullptr;
        it = m_series.insert(runId, stored.value);
    }
    return &it.value();
}

void RunTracker::note(const QString &problem)
{
    m_problems.append(problem);
}

void RunTracker::refresh(const QStringList &runIds)
{
    if (m_outstanding > 0)
        return;
    m_problems.clear();
    m_runs = runIds;
    if (m_runs.isEmpty()) {
        const auto runs = m_store->runs(m_profile.name);
        if (!runs.ok())
            return emit failed(runs.error);
        for (const RunRecord &run : runs.value)
            m_runs.append(run.id);
    }
    m_jobs.clear();
    m_polled.clear();
    for (const QString &runId : std::as_const(m_runs)) {
        const auto jobs = m_store->jobs(runId);
        if (!jobs.ok())
            return emit failed(jobs.error);
        for (const JobRecord &job : jobs.value) {
            if (isUnfinished(job))
                m_jobs.append(job);
        }
    }
    if (m_jobs.isEmpty())
        return emit refreshed({});
    pollJobs();
}

void RunTracker::pollJobs()
{
    if (!m_connection)
        return emit refreshed(QStringLiteral("no connection"));
    ++m_outstanding;
    QString localState;
    if (m_profile.scheduler == SchedulerKind::Local) {
        // Local jobs keep their state under <work>/local: the launcher made it absolute in the run's paths.
        localState = localStateDirectoryOf(m_jobs.constFirst().stdoutPath);
    }
    auto *client = new SchedulerClient(m_connection, m_profile.commands(localState), this);
    connect(client, &SchedulerClient::failed, this, [this, client](const QString &error) {
        client->deleteLater();
        note(error);
        // Without states, still read what the jobs wrote.
        for (const JobRecord &job : std::as_const(m_jobs))
            readMetrics(job);
        finishStep();
    });
    connect(client, &SchedulerClient::polled, this, [this, client](const JobListResult &result) {
        client->deleteLater();
        jobsPolled(result);
    });
    QStringList ids;
    for (const JobRecord &job : std::as_const(m_jobs))
        ids.append(job.jobId);
    client->poll(ids);
}

void RunTracker::jobsPolled(const JobListResult &result)
{
    if (!result.ok())
        note(QStringLiteral("the scheduler's answer was partly unreadable: ") + result.errorString());
    for (JobRecord &job : m_jobs) {
        const JobInfo *info = result.find(job.jobId);
        if (info)
            m_polled.insert(job.jobId, *info);
        if (info && info->state != JobState::Unknown) {
            const QString state = jobStateName(info->state);
            if (state != job.state || info->exitCode != job.exitCode) {
                const StoreStatus saved = m_store->updateJobState(job.runId, job.attempt, state, info->exitCode);
                if (!saved.ok())
                    note(saved.error);
            }
            job.state = state;
            job.exitCode = info->exitCode;
        }
        readMetrics(job);
    }
    cancelWaitingInVain();
    finishStep();
}

void RunTracker::cancelWaitingInVain()
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
        return;
    ++m_outstanding;
    cancelNext(ids);
}

void RunTracker::cancelNext(QStringList ids)
{
    if (ids.isEmpty() || !m_connection)
        return finishStep();
    const QString id = ids.takeFirst();
    auto *client = new SchedulerClient(m_connection, m_profile.commands(), this);
    connect(client, &SchedulerClient::failed, this, [this, client](const QString &error) {
        client->deleteLater();
        note(QStringLiteral("cancelling attempts that can no longer start: ") + error);
        finishStep();
    });
    connect(client, &SchedulerClient::actionDone, this, [this, client, id, ids] {
        client->deleteLater();
        for (JobRecord &job : m_jobs) {
            if (job.jobId != id)
                continue;
            job.state = jobStateName(JobState::Cancelled);
            const StoreStatus saved = m_store->updateJobState(job.runId, job.attempt, job.state, -1);
            if (!saved.ok())
                note(saved.error);
        }
        cancelNext(ids); // one at a time, each after the one that waits on it
    });
    client->act(SchedulerAction::Cancel, {id});
}

void RunTracker::readMetrics(const JobRecord &job)
{
    if (job.metricsPath.isEmpty() || !m_connection)
        return;
    ++m_outstanding;
    const QString path = remotePathExpression(job.metricsPath);
    const QString command =
        QStringLiteral("if test -f %1; then tail -c +%2 %1; fi").arg(path).arg(job.offsets.metricsOffset + 1);
    RemoteCommand *run = m_connection->run(command);
    connect(run, &RemoteCommand::failed, this, [this, job](const QString &error) {
        note(QStringLiteral("reading %1: %2").arg(job.metricsPath, error));
        finishStep();
    });
    connect(run, &RemoteCommand::finished, this, [this, job](const ExecResult &result) {
        if (result.exitCode != 0)
            note(QStringLiteral("reading %1: %2").arg(job.metricsPath, QString::fromUtf8(result.err.trimmed())));
        else
            metricsRead(job, result.out);
        finishStep();
    });
}

void RunTracker::metricsRead(const JobRecord &job, const QByteArray &bytes)
{
    MetricsReader reader(MetricsReader::Format::JsonLines, job.offsets.metricsOffset);
    QList<MetricEvent> events = reader.feed(bytes);
    if (reader.offset() == job.offsets.metricsOffset)
        return;
    // Cached before the append: a series first read from the store afterwards would hold these events
    // already.
    series(job.runId);
    const StoreStatus saved = m_store->appendMetrics(job.runId, job.attempt, events, reader.offset());
    if (!saved.ok())
        return note(saved.error);
    if (reader.counts().malformed > 0)
        note(QStringLiteral("%1: %2 malformed line(s) skipped").arg(job.metricsPath).arg(reader.counts().malformed));
    for (const MetricEvent &event : std::as_const(events)) {
        if (event.kind != MetricEventKind::Checkpoint)
            continue;
        CheckpointRecord checkpoint{job.runId,   event.path, job.attempt, event.epoch, event.step,
                                    event.bytes, event.time, true,        false,       event.reason};
        const StoreStatus stored = m_store->saveCheckpoint(checkpoint);
        if (!stored.ok())
            note(stored.error);
    }
    if (const auto cached = m_series.find(job.runId); cached != m_series.end() && !events.isEmpty())
        cached->apply(events, job.attempt);
    if (!events.isEmpty())
        emit metricsArrived(job.runId, job.attempt, events);
}

void RunTracker::settleRun(const QString &runId)
{
    const auto jobs = m_store->jobs(runId);
    const auto run = m_store->run(runId);
    if (!jobs.ok() || !run.ok() || !run.value || jobs.value.isEmpty())
        return;
    // Not simply the newest job: attempts submitted up front wait behind the one that runs.
    const JobRecord &latest = jobs.value.at(speakingJob(jobs.value));
    const RunSeries *runSeries = series(runId);
    RunProgress progress = runSeries ? runSeries->progress() : RunProgress{};
    // The submitted --epochs wins: until a resumed attempt's start event arrives the series still has the old
    // total.
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
        // The trainer fell back to an older checkpoint: the run must say so, or the lost steps look like a
        // bug.
        const QString warning = QStringLiteral("warning: resumed from %1; %2 newer checkpoint(s) were torn or corrupt")
                                    .arg(runSeries->info().resumedFrom.section(u'/', -1))
                                    .arg(runSeries->info().resumeSkipped);
        if (!updated.message.contains(warning))
            updated.message = updated.message.isEmpty() ? warning : updated.message + QStringLiteral("; ") + warning;
    }
    if (updated.message != fresh.value->message)
        m_store->updateRun(updated);
    if (ended && m_autoRestart)
        considerRestart(updated, jobs.value);
    emit runUpdated(runId);
}

void RunTracker::considerRestart(const RunRecord &run, const QList<JobRecord> &jobs)
{
    if (m_restarting.contains(run.id) || !m_connection)
        return;
    const JobSpec::FromJson spec = JobSpec::fromJson(QJsonDocument::fromJson(run.specJson.toUtf8()).object());
    const RunSeries *runSeries = series(run.id);
    if (!spec.ok() || !runSeries)
        return;
    const RestartDecision decision =
        decideRestart(spec.spec, jobs, runSeries->info(), m_polled.value(jobs.constLast().jobId));
    if (!decision.restart) {
        if (!decision.reason.isEmpty() && run.message.isEmpty()) {
            RunRecord updated = run;
            updated.message = decision.reason;
            m_store->updateRun(updated);
        }
        return;
    }
    QString problem;
    const auto request = resumeRequest(*m_store, m_profile, run, QStringLiteral("auto"), {}, &problem);
    if (!request)
        return note(problem);
    m_restarting.insert(run.id);
    auto *launcher = new RunLauncher(m_connection, m_store, this);
    const QString runId = run.id;
    const QString reason = decision.reason;
    connect(launcher, &RunLauncher::failed, this, [this, launcher, runId](const QString &error) {
        launcher->deleteLater();
        m_restarting.remove(runId);
        const QString message = QStringLiteral("restarting run %1 failed: %2").arg(runId.left(8), error);
        note(message);
        emit restartFailed(runId, message);
    });
    connect(launcher, &RunLauncher::submitted, this, [this, launcher, runId, reason](const LaunchResult &result) {
        launcher->deleteLater();
        m_restarting.remove(runId);
        const auto stored = m_store->run(runId);
        if (stored.ok() && stored.value) {
            RunRecord updated = *stored.value;
            updated.message = reason;
            m_store->updateRun(updated);
        }
        emit restarted(runId, result.jobId, reason);
        emit runUpdated(runId);
    });
    launcher->start(*request);
}

void RunTracker::finishStep()
{
    if (--m_outstanding > 0)
        return;
    QStringList settled;
    for (const JobRecord &job : std::as_const(m_jobs)) {
        if (!settled.contains(job.runId)) {
            settled.append(job.runId);
            settleRun(job.runId);
        }
    }
    emit refreshed(m_problems.join(QStringLiteral("; ")));
}

} // namespace torchdeck::remote
