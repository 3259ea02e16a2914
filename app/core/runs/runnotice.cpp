#include "core/runs/runnotice.h"

#include "core/coretr.h"
#include "core/duration.h"
#include "core/runs/jobscheduling.h"
#include "core/runs/restartdecision.h"
#include "core/scheduler/jobstate.h"

namespace torchdeck {

namespace {

RunNotice noticeOf(RunNotice::Kind kind, const RunRecord &run, const QString &jobId, const QString &detail)
{
    return {kind, run.id, run.name.isEmpty() ? run.id.left(8) : run.name, run.cluster, jobId, detail};
}

} // namespace

QString RunNotice::event() const
{
    switch (kind) {
    case Kind::Completed:
        return QStringLiteral("completed");
    case Kind::Failed:
        return QStringLiteral("failed");
    case Kind::Restarted:
        return QStringLiteral("restarted");
    case Kind::RestartFailed:
        return QStringLiteral("restart_failed");
    case Kind::Stalled:
        return QStringLiteral("stalled");
    case Kind::Waiting:
        return QStringLiteral("waiting");
    case Kind::Moved:
        return QStringLiteral("moved");
    case Kind::MoveFailed:
        return QStringLiteral("move_failed");
    }
    return {};
}

QString RunNotice::title() const
{
    switch (kind) {
    case Kind::Completed:
        return core::Tr::tr("run %1 completed").arg(runName);
    case Kind::Failed:
        return core::Tr::tr("run %1 failed").arg(runName);
    case Kind::Restarted:
        return core::Tr::tr("run %1 restarted").arg(runName);
    case Kind::RestartFailed:
        return core::Tr::tr("run %1 could not be restarted").arg(runName);
    case Kind::Stalled:
        return core::Tr::tr("run %1 stalled").arg(runName);
    case Kind::Waiting:
        return core::Tr::tr("run %1 still waits").arg(runName);
    case Kind::Moved:
        return core::Tr::tr("run %1 moved").arg(runName);
    case Kind::MoveFailed:
        return core::Tr::tr("run %1 could not be moved").arg(runName);
    }
    return {};
}

QString RunNotice::body() const
{
    const QString where =
        jobId.isEmpty() ? core::Tr::tr("on %1").arg(cluster) : core::Tr::tr("job %1 on %2").arg(jobId, cluster);
    return detail.isEmpty() ? where : core::Tr::tr("%1: %2").arg(where, detail);
}

QJsonObject RunNotice::toJson() const
{
    return {{QStringLiteral("event"), event()},   {QStringLiteral("run"), runId},  {QStringLiteral("name"), runName},
            {QStringLiteral("cluster"), cluster}, {QStringLiteral("job"), jobId},  {QStringLiteral("detail"), detail},
            {QStringLiteral("title"), title()},   {QStringLiteral("body"), body()}};
}

std::optional<RunNotice> endNotice(const QString &stateBefore, const RunRecord &run, const QList<JobRecord> &jobs)
{
    if (isFinal(jobStateFromName(stateBefore)) || !run.hasEnded() || jobs.isEmpty())
        return std::nullopt;
    const JobRecord &job = jobs.at(speakingJob(jobs));
    switch (run.jobState()) {
    case JobState::Completed:
        return noticeOf(RunNotice::Kind::Completed, run, job.jobId,
                        run.epochsTotal > 0 ? core::Tr::tr("%1 of %2 epochs").arg(run.epochsDone).arg(run.epochsTotal)
                                            : QString());
    case JobState::Cancelled:
        return std::nullopt;
    default: {
        QString cause = endCause(job, requeueExitCodeOf(run));
        if (cause.isEmpty())
            cause = run.state;
        if (!run.message.isEmpty())
            cause += QStringLiteral("; ") + run.message;
        return noticeOf(RunNotice::Kind::Failed, run, job.jobId, cause);
    }
    }
}

RunNotice restartNotice(const RunRecord &run, const QString &jobId, const QString &reason)
{
    return noticeOf(RunNotice::Kind::Restarted, run, jobId, reason);
}

RunNotice restartFailedNotice(const RunRecord &run, const QString &error)
{
    return noticeOf(RunNotice::Kind::RestartFailed, run, {}, error);
}

RunNotice stallNotice(const RunRecord &run, const QString &jobId, const QString &message)
{
    return noticeOf(RunNotice::Kind::Stalled, run, jobId, message);
}

RunNotice waitNotice(const RunRecord &run, const JobRecord &job, const QDateTime &now)
{
    const QString waited = core::Tr::tr("waiting for %1").arg(formatDuration(double(job.submitted.secsTo(now))));
    const QString why = jobWhy(job, requeueExitCodeOf(run));
    return noticeOf(RunNotice::Kind::Waiting, run, job.jobId,
                    why.isEmpty() ? waited : waited + QStringLiteral(": ") + why);
}

RunNotice moveNotice(const RunRecord &run, const JobRecord &job, bool moved, const QString &detail)
{
    RunNotice notice = noticeOf(moved ? RunNotice::Kind::Moved : RunNotice::Kind::MoveFailed, run, job.jobId, detail);
    notice.cluster = job.cluster.isEmpty() ? run.cluster : job.cluster; // where the job waited
    return notice;
}

} // namespace torchdeck
