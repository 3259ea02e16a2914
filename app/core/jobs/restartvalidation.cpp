#include "core/jobs/restartvalidation.h"

namespace torchdeck {

QList<JobSpecError> restartProblems(const JobSpec &s, const ClusterCaps &c)
{
    QList<JobSpecError> errors;
    auto add = [&errors](const QString &field, const QString &message) { errors.append({field, message}); };
    const QString signal = effectiveCheckpointSignal(s);
    if (!signal.isEmpty()) {
        if (!supportedCheckpointSignals().contains(signal))
            add(QStringLiteral("checkpointSignal"),
                QStringLiteral("'%1' is not one of %2.")
                    .arg(s.checkpointSignal, supportedCheckpointSignals().join(u", ")));
        // Measured on Slurm 22.05 and Open MPI 4.1: srun and mpirun pass USR1/USR2 on to the ranks, but on
        // TERM they end the whole step, so the ranks' "requeue me" exit code is lost.
        else if (signal == u"TERM" && s.launch != LaunchMethod::Local)
            add(QStringLiteral("checkpointSignal"),
                QStringLiteral("srun and mpirun end the job step on TERM instead of passing it on to the "
                               "ranks: use USR1 or USR2."));
        // torchrun handles TERM/INT/HUP/QUIT only; USR1 or USR2 would kill it and leave its workers. Only a
        // signal asked for by name gets here: by default such a job has none.
        if (customUnderPerNodeLauncher(s))
            add(QStringLiteral("checkpointSignalEnabled"),
                QStringLiteral(
                    "A per-node launcher like torchrun does not pass the checkpoint signal on to "
                    "its workers: leave the signal unset (the default), or use srun with one task per rank."));
    }
    if (s.signalLeadSeconds < 0 || s.signalLeadSeconds > 65535)
        add(QStringLiteral("signalLeadSeconds"), QStringLiteral("The lead time is from 0 to 65535 seconds."));
    if (!signal.isEmpty() && s.signalLeadSeconds > 0 && c.scheduler != SchedulerKind::Local) {
        if (s.wallTimeSeconds > 0 && s.signalLeadSeconds >= s.wallTimeSeconds)
            add(QStringLiteral("signalLeadSeconds"),
                QStringLiteral("The warning would come before the job starts: the lead time must be shorter "
                               "than the wall time."));
        if (c.scheduler == SchedulerKind::Pbs && s.wallTimeSeconds == 0)
            add(QStringLiteral("wallTimeSeconds"),
                QStringLiteral("PBS sends no warning signal; the script's own timer needs the wall time."));
    }
    if (s.maxRestarts < 0)
        add(QStringLiteral("maxRestarts"), QStringLiteral("The restart limit cannot be negative."));
    if (s.requeueExitCode < 1 || s.requeueExitCode > 255)
        add(QStringLiteral("requeueExitCode"), QStringLiteral("An exit code is from 1 to 255."));
    return errors;
}

QStringList supportedCheckpointSignals()
{
    return {QStringLiteral("USR1"), QStringLiteral("USR2"), QStringLiteral("TERM")};
}

} // namespace torchdeck
