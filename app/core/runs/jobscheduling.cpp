#include "core/runs/jobscheduling.h"

#include "core/coretr.h"
#include "core/jobs/jobspec.h"
#include "core/scheduler/jobstate.h"

namespace torchdeck {

namespace {

// Slurm's most common pending reasons (squeue(1), "JOB REASON CODES"), in words.
QString slurmReasonWords(const QString &code)
{
    struct Entry {
        const char16_t *code;
        const char *words;
    };
    static constexpr Entry entries[] = {
        {u"Priority", QT_TRANSLATE_NOOP("torchdeck::core", "higher-priority jobs are ahead of it")},
        {u"Resources", QT_TRANSLATE_NOOP("torchdeck::core", "waiting for its nodes to be free")},
        {u"Dependency", QT_TRANSLATE_NOOP("torchdeck::core", "waiting for the job it depends on")},
        {u"DependencyNeverSatisfied",
         QT_TRANSLATE_NOOP("torchdeck::core", "the job it depends on ended so that it can never start")},
        {u"BeginTime", QT_TRANSLATE_NOOP("torchdeck::core", "its start time has not come yet")},
        {u"JobHeldUser", QT_TRANSLATE_NOOP("torchdeck::core", "held by its user")},
        {u"JobHeldAdmin", QT_TRANSLATE_NOOP("torchdeck::core", "held by an administrator")},
        {u"ReqNodeNotAvail", QT_TRANSLATE_NOOP("torchdeck::core", "the nodes it asks for are not available")},
        {u"PartitionTimeLimit", QT_TRANSLATE_NOOP("torchdeck::core", "its wall time is over the partition's limit")},
        {u"PartitionNodeLimit",
         QT_TRANSLATE_NOOP("torchdeck::core", "it asks for more nodes than the partition allows")},
        {u"PartitionDown", QT_TRANSLATE_NOOP("torchdeck::core", "the partition is down")},
        {u"PartitionInactive", QT_TRANSLATE_NOOP("torchdeck::core", "the partition is inactive")},
        {u"NodeDown", QT_TRANSLATE_NOOP("torchdeck::core", "a node it needs is down")},
        {u"Reservation", QT_TRANSLATE_NOOP("torchdeck::core", "waiting for its reservation")},
        {u"Licenses", QT_TRANSLATE_NOOP("torchdeck::core", "waiting for licenses")},
        {u"BadConstraints", QT_TRANSLATE_NOOP("torchdeck::core", "no node can meet its constraints")},
    };
    for (const Entry &entry : entries) {
        if (code == QStringView(entry.code))
            return core::Tr::tr(entry.words);
    }
    if (code.startsWith(u"QOS"))
        return core::Tr::tr("a limit of its QOS");
    if (code.startsWith(u"Assoc"))
        return core::Tr::tr("a limit of its account");
    return {};
}

// Waiting for its start, or to start again: the states a reason and an expected start are about.
bool waits(JobState state)
{
    return state == JobState::Pending || state == JobState::Requeued;
}

bool isSlurmCode(const QString &reason)
{
    return !reason.isEmpty() && !reason.contains(u' ');
}

} // namespace

JobScheduling schedulingOf(const JobInfo &info)
{
    JobScheduling scheduling;
    scheduling.state = info.rawState.trimmed();
    const QString reason = info.reason.trimmed();
    scheduling.reason = reason == u"None" || reason == u"(null)" ? QString() : reason;
    if (waits(info.state) && info.expectedStart.isValid())
        scheduling.startEstimate = info.expectedStart.toUTC();
    const QString nodes = info.nodes.trimmed();
    scheduling.nodes = nodes == u"(null)" || nodes == u"None" ? QString() : nodes;
    // Only once ended: a running job's would change at every poll, and nothing reads it before the end.
    if (isFinal(info.state) && info.elapsedSeconds >= 0)
        scheduling.elapsedSeconds = info.elapsedSeconds;
    return scheduling;
}

QString waitReason(const JobRecord &job)
{
    if (!waits(job.jobState()))
        return {};
    const QString &reason = job.scheduling.reason;
    if (!isSlurmCode(reason))
        return reason; // a PBS comment, already words
    const QString words = slurmReasonWords(reason);
    return words.isEmpty() ? reason : core::Tr::tr("%1 (%2)").arg(words, reason);
}

QString endCause(const JobRecord &job, int requeueExitCode)
{
    if (!job.hasEnded())
        return {};
    const QString word = job.scheduling.state.section(u' ', 0, 0).toUpper(); // "CANCELLED by 0"
    if (word == u"OUT_OF_MEMORY" || word == u"OOM" || job.scheduling.reason == u"OutOfMemory")
        return core::Tr::tr("out of memory");
    if (word == u"NODE_FAIL" || word == u"NF")
        return core::Tr::tr("node failure");
    if (word == u"BOOT_FAIL" || word == u"BF")
        return core::Tr::tr("its nodes failed to boot");
    if (word == u"DEADLINE" || word == u"DL")
        return core::Tr::tr("its deadline");
    switch (job.jobState()) {
    case JobState::Timeout:
        return core::Tr::tr("wall time");
    case JobState::Preempted:
        return core::Tr::tr("preempted");
    case JobState::Cancelled: // by its user, or by torchdeck's move of a waiting restart (runmover.h)
        if (job.scheduling.reason.startsWith(QStringLiteral("moved to ")))
            return job.scheduling.reason;
        // A --chain job queued behind one that completed the run (or a cancelled run's): its turn never came, no node
        // was ever given to it.
        if (job.origin == u"chain" && job.scheduling.nodes.isEmpty() && job.scheduling.elapsedSeconds <= 0 &&
            job.offsets.stdoutOffset == 0 && job.offsets.metricsOffset == 0)
            return core::Tr::tr("cancelled before it ran (a spare of --chain)");
        return core::Tr::tr("cancelled");
    case JobState::Failed:
        // The run's way to say "checkpointed, restart me" (the trainer's 75): a scheduler calls it failed all the same.
        if (job.exitCode == requeueExitCode)
            return core::Tr::tr("exit code %1: it checkpointed to be restarted").arg(job.exitCode);
        return job.exitCode >= 0 ? core::Tr::tr("exit code %1").arg(job.exitCode) : core::Tr::tr("failed");
    default:
        return {};
    }
}

QString jobWhy(const JobRecord &job, int requeueExitCode)
{
    if (job.hasEnded())
        return endCause(job, requeueExitCode);
    QString why = waitReason(job);
    if (job.scheduling.startEstimate.isValid() && waits(job.jobState())) {
        const QString start =
            core::Tr::tr("expected start %1")
                .arg(job.scheduling.startEstimate.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        why = why.isEmpty() ? start : why + QStringLiteral("; ") + start;
    }
    return why;
}

bool waitedPastLimit(const JobRecord &job, const QDateTime &now, int limitSeconds)
{
    if (limitSeconds <= 0 || !waits(job.jobState()) || !job.submitted.isValid() || job.jobId.isEmpty())
        return false;
    const QString &reason = job.scheduling.reason;
    static const QStringList asked{QStringLiteral("BeginTime"), QStringLiteral("Dependency"),
                                   QStringLiteral("DependencyNeverSatisfied"), QStringLiteral("JobHeldUser"),
                                   QStringLiteral("JobHeldAdmin")};
    if (asked.contains(reason) || job.scheduling.state == u"H") // PBS and Torque say H for held
        return false;
    return job.submitted.secsTo(now) > limitSeconds;
}

bool restartWaitedToMove(const JobRecord &job, const QDateTime &now, int moveAfterSeconds)
{
    if (moveAfterSeconds <= 0 || job.attempt < 1 || !waits(job.jobState()) || !job.submitted.isValid() ||
        job.jobId.isEmpty() || job.scheduling.reason.startsWith(QStringLiteral("Dependency")))
        return false;
    return job.submitted.secsTo(now) >= moveAfterSeconds;
}

int requeueExitCodeOf(const RunRecord &run)
{
    const JobSpec::FromJson spec = run.spec();
    return spec.ok() ? spec.spec.requeueExitCode : kTrainerRequeueExitCode;
}

} // namespace torchdeck
