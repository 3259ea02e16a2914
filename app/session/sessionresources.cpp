// ClusterSession's samples of what running jobs use (core/scheduler/resourceprobe.h), for the runs a front shows.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/privatefiles.h"
#include "core/runs/restartdecision.h"
#include "core/runs/stackdump.h"
#include "core/scheduler/jobstate.h"
#include "core/scheduler/resourceprobe.h"
#include "core/store/runstore.h"
#include "session/clustersession.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <memory>

namespace torchdeck {

namespace {
constexpr int probeDeadlineMs = 45000; // the probe's own timeout (30 s) and the round trip
constexpr int dumpDeadlineMs = 150000; // the dump's own timeout (120 s) and the round trip
} // namespace

SessionOperation *ClusterSession::stackDump(const QString &runId)
{
    const auto jobs = m_store->jobs(runId);
    if (!jobs.ok())
        return SessionOperation::alreadyFailed(jobs.error, this);
    if (jobs.value.isEmpty())
        return SessionOperation::alreadyFailed(tr("run %1 has no job").arg(runId.left(8)), this);
    const JobRecord job = jobs.value.at(speakingJob(jobs.value));
    if (jobStateFromName(job.state) != JobState::Running)
        return SessionOperation::alreadyFailed(
            tr("job %1 of run %2 is %3: only a running job has stacks").arg(job.jobId, runId.left(8), job.state), this);
    const QString command = stackDumpCommand(m_profile.scheduler, job.jobId, job.scheduling.nodes);
    if (command.isEmpty())
        return SessionOperation::alreadyFailed(tr("no stack dump for local runs yet"), this);
    auto *operation = new SessionOperation(this);
    operation->reportProgress(tr("Dumping the stacks of job %1").arg(job.jobId), 0, 0);
    const QString folder = QFileInfo(m_store->path()).dir().filePath(QStringLiteral("stacks/") + runId);
    const SchedulerKind kind = m_profile.scheduler;
    runCommand(
        operation, command,
        [operation, folder, job, kind](int exitCode, const QByteArray &out, const QByteArray &err) {
            QString dump = assembleStackDump(kind, out);
            if (dump.trimmed().isEmpty())
                return operation->fail(tr("no stack of job %1 (exit %2): %3")
                                           .arg(job.jobId)
                                           .arg(exitCode)
                                           .arg(QString::fromUtf8(err.trimmed()).section(u'\n', -1)));
            dump.prepend(tr("# job %1, %2\n").arg(job.jobId, QDateTime::currentDateTime().toString(Qt::ISODate)));
            QString path;
            if (makePrivateDirectory(folder).isEmpty()) {
                path = QDir(folder).filePath(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                                             QStringLiteral(".txt"));
                QFile file(path);
                if (!file.open(QIODevice::WriteOnly) || file.write(dump.toUtf8()) < 0 ||
                    !makePrivateFile(path).isEmpty())
                    path.clear();
            }
            operation->finishWith(agent::StackDump::Reply{dump, path});
        },
        [operation](const QString &error) { operation->fail(error); }, dumpDeadlineMs);
    return operation;
}

void ClusterSession::setLookedAt(const QStringList &runIds)
{
    const bool added = std::any_of(runIds.cbegin(), runIds.cend(),
                                   [this](const QString &runId) { return !m_lookedAt.contains(runId); });
    m_lookedAt = runIds;
    applyFollowPaces();
    m_lastSample.removeIf([&runIds](const auto &last) { return !runIds.contains(last.key()); });
    if (m_lookedAt.isEmpty()) {
        m_resourceTimer.stop();
        return;
    }
    if (!m_resourceTimer.isActive())
        m_resourceTimer.start();
    if (added) // a run just shown gets its numbers now, not a whole interval later
        sampleResources(m_lookedAt);
}

SessionOperation *ClusterSession::sampleResources(const QStringList &runIds)
{
    auto *operation = new SessionOperation(this);
    struct Tally {
        int pending = 1; // released after all are asked
        agent::Resources::Reply reply;
    };
    auto tally = std::make_shared<Tally>();
    auto settle = [operation, tally] {
        if (--tally->pending == 0)
            operation->finishWith(tally->reply);
    };
    for (const QString &runId : runIds) {
        ++tally->pending;
        sampleRun(operation, runId, [runId, tally, settle](bool sampled, const QString &error) {
            if (sampled)
                tally->reply.sampled.append(runId);
            if (!error.isEmpty())
                tally->reply.problems.append(error);
            settle();
        });
    }
    settle();
    return operation;
}

void ClusterSession::sampleRun(QObject *context, const QString &runId,
                               const std::function<void(bool, const QString &)> &done)
{
    const auto jobs = m_store->jobs(runId);
    if (!jobs.ok())
        return done(false, jobs.error);
    if (jobs.value.isEmpty() || m_sampling.contains(runId))
        return done(false, {});
    const JobRecord job = jobs.value.at(speakingJob(jobs.value));
    const QString command =
        jobStateFromName(job.state) == JobState::Running
            ? resourceProbeCommand(m_profile.scheduler, m_profile.pbsDialect, job.jobId, job.scheduling.nodes)
            : QString();
    if (command.isEmpty())
        return done(false, {});
    m_sampling.insert(runId);
    const SchedulerKind kind = m_profile.scheduler;
    runCommand(
        context, command,
        [this, runId, job, kind, done](int exitCode, const QByteArray &out, const QByteArray &err) {
            m_sampling.remove(runId);
            ResourceProbeResult probe = parseResourceProbe(kind, out);
            if (!probe.error.isEmpty() && probeRacedJobEnd(err))
                return done(false, {}); // it ended meanwhile: the next poll says how
            if (!probe.error.isEmpty()) {
                const QString said = QString::fromUtf8(err.trimmed()).section(u'\n', -1);
                return done(false, tr("no resource sample of job %1 (exit %2): %3")
                                       .arg(job.jobId)
                                       .arg(exitCode)
                                       .arg(said.isEmpty() ? probe.error : said));
            }
            ResourceSample &sample = probe.sample;
            sample.time = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
            const LastSample before = m_lastSample.value(runId);
            computeCpuPercent(&sample, before.jobId == job.jobId ? before.sample : ResourceSample{});
            m_lastSample.insert(runId, {job.jobId, sample});
            const QList<MetricEvent> events{resourceEvent(sample)};
            m_series.series(runId); // cached before the append, as the tracker does
            const StoreStatus stored = m_store->appendMetrics(runId, job.attempt, events);
            if (!stored.ok())
                return done(false, stored.error);
            m_series.apply(runId, job.attempt, events);
            emit metricsArrived(runId, job.attempt, events);
            done(true, {});
        },
        [this, runId, job, done](const QString &error) {
            m_sampling.remove(runId);
            done(false, tr("no resource sample of job %1: %2").arg(job.jobId, error));
        },
        probeDeadlineMs);
}

} // namespace torchdeck
