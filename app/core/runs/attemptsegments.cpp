#include "core/runs/attemptsegments.h"

#include "core/coretr.h"
#include "core/scheduler/jobstate.h"

#include <QHash>
#include <cmath>

namespace torchdeck {

namespace {

// The trainer's exit code for "checkpointed on the warning signal, requeue me" (docs/trainer.md).
constexpr int kRequeueExitCode = 75;

// The newest valid checkpoint an attempt wrote, by step; empty when it wrote none.
QString latestCheckpointOf(int attempt, const QList<CheckpointRecord> &checkpoints)
{
    const CheckpointRecord *latest = nullptr;
    for (const CheckpointRecord &checkpoint : checkpoints) {
        if (checkpoint.attempt == attempt && checkpoint.valid && (!latest || checkpoint.step > latest->step))
            latest = &checkpoint;
    }
    return latest ? latest->path : QString();
}

AttemptEnd endOf(const JobRecord &job, const JobRecord *next, const QList<CheckpointRecord> &checkpoints)
{
    const JobState state = jobStateFromName(job.state);
    if (next && !next->resumeFrom.isEmpty()) {
        const QString latest = latestCheckpointOf(job.attempt, checkpoints);
        if (!latest.isEmpty() && next->resumeFrom != latest)
            return AttemptEnd::Branched;
    }
    switch (state) {
    case JobState::Timeout:
        return AttemptEnd::WallTime;
    case JobState::Preempted:
        return AttemptEnd::Preempted;
    case JobState::Requeued:
        return AttemptEnd::Requeued;
    case JobState::Cancelled:
        return AttemptEnd::Cancelled;
    case JobState::Completed:
        return next ? AttemptEnd::Continued : AttemptEnd::Completed;
    case JobState::Failed:
        return job.exitCode == kRequeueExitCode ? AttemptEnd::WallTime : AttemptEnd::Failed;
    default:
        break;
    }
    if (job.exitCode == kRequeueExitCode)
        return AttemptEnd::WallTime; // PBS wrappers report no state worth the name; the stop event's code
    return next ? AttemptEnd::Requeued : AttemptEnd::Running;
}

} // namespace

QString attemptEndName(AttemptEnd end)
{
    switch (end) {
    case AttemptEnd::Running:
        return core::Tr::tr("running");
    case AttemptEnd::Completed:
        return core::Tr::tr("completed");
    case AttemptEnd::Continued:
        return core::Tr::tr("continued");
    case AttemptEnd::WallTime:
        return core::Tr::tr("wall time");
    case AttemptEnd::Preempted:
        return core::Tr::tr("preempted");
    case AttemptEnd::Requeued:
        return core::Tr::tr("requeued");
    case AttemptEnd::Branched:
        return core::Tr::tr("branched");
    case AttemptEnd::Failed:
        return core::Tr::tr("failed");
    case AttemptEnd::Cancelled:
        return core::Tr::tr("cancelled");
    }
    return {};
}

QList<AttemptSegment> attemptSegments(const MetricSeries &series, const QList<JobRecord> &jobs,
                                      const QList<CheckpointRecord> &checkpoints)
{
    QList<AttemptSegment> segments;
    QHash<int, qsizetype> byAttempt;
    for (qsizetype i = 0; i < jobs.size(); ++i) {
        const JobRecord &job = jobs.at(i);
        AttemptSegment segment;
        segment.attempt = job.attempt;
        segment.jobId = job.jobId;
        segment.exitCode = job.exitCode;
        segment.end = endOf(job, i + 1 < jobs.size() ? &jobs.at(i + 1) : nullptr, checkpoints);
        byAttempt.insert(job.attempt, segments.size());
        segments.append(segment);
    }
    for (qsizetype row = 0; row < series.size(); ++row) {
        const auto found = byAttempt.constFind(series.attempt(row));
        if (found == byAttempt.constEnd())
            continue; // points of an attempt the store has no job for (being submitted)
        AttemptSegment &segment = segments[*found];
        const double x = series.x(row);
        segment.firstX = std::isnan(segment.firstX) ? x : std::min(segment.firstX, x);
        segment.lastX = std::isnan(segment.lastX) ? x : std::max(segment.lastX, x);
        ++(series.isDiscarded(row) ? segment.discardedPoints : segment.visiblePoints);
    }
    return segments;
}

QList<AttemptBoundary> attemptBoundaries(const MetricSeries &series, const QList<JobRecord> &jobs,
                                         const QList<CheckpointRecord> &checkpoints)
{
    QList<AttemptBoundary> boundaries;
    if (jobs.size() < 2)
        return boundaries;
    const QList<AttemptSegment> segments = attemptSegments(series, jobs, checkpoints);
    const auto clusterOf = [&jobs](int attempt) {
        for (const JobRecord &job : jobs)
            if (job.attempt == attempt)
                return job.cluster;
        return QString();
    };
    for (qsizetype i = 1; i < segments.size(); ++i) {
        const AttemptSegment &ended = segments.at(i - 1);
        if (std::isnan(segments.at(i).firstX))
            continue;
        QString label = core::Tr::tr("job %1: %2").arg(ended.jobId, attemptEndName(ended.end));
        // A run continued on another cluster (`resume --on`): where it went on is part of the boundary.
        const QString before = clusterOf(ended.attempt);
        const QString after = clusterOf(segments.at(i).attempt);
        if (!before.isEmpty() && !after.isEmpty() && before != after)
            label += core::Tr::tr("; on %1 from here").arg(after);
        boundaries.append({segments.at(i).firstX, ended.attempt, label});
    }
    return boundaries;
}

} // namespace torchdeck
