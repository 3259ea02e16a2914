#include "core/runs/restartdecision.h"

#include "core/coretr.h"
#include "core/scheduler/jobstate.h"

#include <algorithm>

namespace torchdeck {

namespace {
constexpr qint64 kWarningEarlySeconds = 60; // sbatch(1) --signal: "may be sent up to 60 seconds earlier"
} // namespace

int restartsUsed(const QList<JobRecord> &attempts, const JobInfo &latest, const RunInfo &info)
{
    // Since the user last resumed the run (a resume starts the count afresh): the agent's own restarts, a chain's
    // queued attempts once they ran (one cancelled unrun, its turn never come, is none), and the times a job requeued
    // itself (it ran again under the same id: the trainer's start events in its metrics say so, and the scheduler for
    // the latest job while it knows it). An attempt recorded before origins were kept counts as a restart.
    int used = 0;
    for (const JobRecord &job : attempts) {
        const JobState state = job.jobState();
        const bool ran = state != JobState::Pending && state != JobState::Cancelled && !job.jobId.isEmpty();
        if (job.origin == u"resume")
            used = 0;
        else if (job.origin == u"restart" || (job.origin == u"chain" && ran) ||
                 (job.origin.isEmpty() && job.attempt > 0))
            ++used;
        int requeues = std::max(info.attemptStarts.value(job.attempt) - 1, 0);
        if (&job == &attempts.constLast())
            requeues = std::max(requeues, latest.restarts);
        used += requeues;
    }
    return used;
}

bool stoppedAtWallTimeWarning(const JobSpec &spec, const JobInfo &job)
{
    if (!spec.checkpointSignalEnabled || spec.signalLeadSeconds <= 0 || job.timeLimitSeconds <= 0 ||
        job.elapsedSeconds < 0)
        return false;
    return job.elapsedSeconds >= job.timeLimitSeconds - spec.signalLeadSeconds - kWarningEarlySeconds;
}

RestartDecision decideRestart(const JobSpec &spec, const QList<JobRecord> &attempts, const RunInfo &info,
                              const JobInfo &latestInfo)
{
    if (attempts.isEmpty())
        return {};
    const JobRecord &latest = attempts.constLast();
    const JobState state = jobStateFromName(latest.state);
    if (!isFinal(state) || state == JobState::Cancelled)
        return {};
    // A start event clears `stopped`, so the stop event read here is the latest attempt's. A custom command
    // writes none: its exit code says it (PBS wrappers show it, with the state "completed").
    const bool trainerAskedRequeue = spec.commandKind == CommandKind::Trainer
                                         ? info.stopped && info.exitCode == spec.requeueExitCode
                                         : latest.exitCode == spec.requeueExitCode;
    // PBS wrappers show every ended job as completed: only the trainer's stop event tells.
    if (state == JobState::Completed && !trainerAskedRequeue)
        return {};
    const bool schedulerStopped = state == JobState::Timeout || state == JobState::Preempted;
    const bool jobSaidRequeue = latest.exitCode == spec.requeueExitCode;
    if (!trainerAskedRequeue && !schedulerStopped && !jobSaidRequeue) {
        const QString why =
            info.stopped && !info.stopMessage.isEmpty()
                ? info.stopMessage
                : core::Tr::tr("job %1 %2%3")
                      .arg(latest.jobId, latest.state,
                           latest.exitCode >= 0 ? core::Tr::tr(" with exit code %1").arg(latest.exitCode) : QString());
        return {false, core::Tr::tr("not restarted: %1").arg(why)};
    }
    const int restarts = restartsUsed(attempts, latestInfo, info);
    if (restarts >= spec.maxRestarts)
        return {false, core::Tr::tr("not restarted: %1 restarts done (the limit)").arg(restarts)};
    QString cause = core::Tr::tr("job %1 checkpointed and asked to be requeued").arg(latest.jobId);
    if (schedulerStopped)
        cause = core::Tr::tr("job %1 ended by %2").arg(latest.jobId, latest.state);
    else if (spec.requeue)
        cause = core::Tr::tr("job %1 checkpointed but did not requeue itself").arg(latest.jobId);
    else if (stoppedAtWallTimeWarning(spec, latestInfo))
        cause = core::Tr::tr("job %1 stopped at its wall time's warning signal and checkpointed").arg(latest.jobId);
    return {true, core::Tr::tr("%1: restart %2 of %3 from the latest checkpoint")
                      .arg(cause)
                      .arg(restarts + 1)
                      .arg(spec.maxRestarts)};
}

qsizetype speakingJob(const QList<JobRecord> &jobs)
{
    for (qsizetype i = 0; i < jobs.size(); ++i) {
        if (!jobs.at(i).hasEnded())
            return i;
    }
    for (qsizetype i = jobs.size() - 1; i > 0; --i) {
        const JobRecord &job = jobs.at(i);
        const bool neverRan = jobStateFromName(job.state) == JobState::Cancelled && job.offsets.metricsOffset == 0 &&
                              job.offsets.stdoutOffset == 0;
        if (!neverRan)
            return i;
    }
    return jobs.isEmpty() ? -1 : 0;
}

bool waitsInVain(const JobInfo &job, const QList<JobRecord> &earlier)
{
    if (job.state != JobState::Pending || job.reason != u"DependencyNeverSatisfied")
        return false;
    return std::any_of(earlier.cbegin(), earlier.cend(),
                       [](const JobRecord &before) { return jobStateFromName(before.state) == JobState::Completed; });
}

QStringList chainLeftovers(const QList<JobRecord> &jobs, const QHash<QString, JobInfo> &polled)
{
    qsizetype first = 1;
    while (first < jobs.size() && !waitsInVain(polled.value(jobs.at(first).jobId, JobInfo{}), jobs.mid(0, first)))
        ++first;
    QStringList ids;
    for (qsizetype i = jobs.size() - 1; i >= first; --i) {
        if (!jobs.at(i).hasEnded())
            ids.append(jobs.at(i).jobId);
    }
    return ids;
}

} // namespace torchdeck
