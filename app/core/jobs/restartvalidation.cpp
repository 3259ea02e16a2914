#include "core/jobs/restartvalidation.h"

#include "core/coretr.h"
#include "core/jobs/signallead.h"

namespace torchdeck {

QList<JobSpecError> restartProblems(const JobSpec &s, const ClusterCaps &c)
{
    QList<JobSpecError> errors;
    auto add = [&errors](const QString &field, const QString &message) { errors.append({field, message}); };
    const QString signal = effectiveCheckpointSignal(s);
    if (!signal.isEmpty()) {
        if (!supportedCheckpointSignals().contains(signal))
            add(QStringLiteral("checkpointSignal"),
                core::Tr::tr("'%1' is not one of %2.")
                    .arg(s.checkpointSignal, supportedCheckpointSignals().join(u", ")));
        // Measured (docs/job-scripts.md): Slurm's INT reaches torchrun and its workers without ending the step,
        // and torchrun dies of USR1/USR2. Elsewhere srun answers INT with a status line, and background
        // commands ignore it.
        else if (customUnderPerNodeLauncher(s) && signal != u"INT")
            add(QStringLiteral("checkpointSignal"),
                core::Tr::tr("A per-node launcher like torchrun passes INT on to its workers and dies of "
                             "USR1/USR2: use INT, the default here."));
        else if (!customUnderPerNodeLauncher(s) && signal == u"INT")
            add(QStringLiteral("checkpointSignal"),
                core::Tr::tr("INT is for a per-node launcher like torchrun: srun answers it with a status line "
                             "and background commands ignore it. Use USR1 or USR2."));
        // Measured on Slurm 22.05 and Open MPI 4.1: srun and mpirun pass USR1/USR2 on to the ranks, but on
        // TERM they end the whole step, so the ranks' "requeue me" exit code is lost.
        else if (signal == u"TERM" && s.launch != LaunchMethod::Local)
            add(QStringLiteral("checkpointSignal"),
                core::Tr::tr("srun and mpirun end the job step on TERM instead of passing it on to the "
                             "ranks: use USR1 or USR2."));
        // torchrun gives its workers 30 s after the signal, then kills them: the wall time must leave that.
        if (customUnderPerNodeLauncher(s) && s.signalLeadSeconds > 0 && s.signalLeadSeconds <= kTorchrunGraceSeconds)
            add(QStringLiteral("signalLeadSeconds"),
                core::Tr::tr("torchrun gives its workers %1 s to stop after the signal: the lead time must be "
                             "longer than that.")
                    .arg(kTorchrunGraceSeconds));
    }
    if (s.signalLeadSeconds < 0 || s.signalLeadSeconds > 65535)
        add(QStringLiteral("signalLeadSeconds"), core::Tr::tr("The lead time is from 0 to 65535 seconds."));
    if (!signal.isEmpty() && s.signalLeadSeconds > 0 && c.scheduler != SchedulerKind::Local) {
        if (s.wallTimeSeconds > 0 && s.signalLeadSeconds >= s.wallTimeSeconds)
            add(QStringLiteral("signalLeadSeconds"),
                core::Tr::tr("The warning would come before the job starts: the lead time must be shorter "
                             "than the wall time."));
        if (c.scheduler == SchedulerKind::Pbs && s.wallTimeSeconds == 0)
            add(QStringLiteral("wallTimeSeconds"),
                core::Tr::tr("PBS sends no warning signal; the script's own timer needs the wall time."));
    }
    if (s.maxRestarts < 0)
        add(QStringLiteral("maxRestarts"), core::Tr::tr("The restart limit cannot be negative."));
    if (s.requeueExitCode < 1 || s.requeueExitCode > 255)
        add(QStringLiteral("requeueExitCode"), core::Tr::tr("An exit code is from 1 to 255."));
    return errors;
}

QStringList supportedCheckpointSignals()
{
    return {QStringLiteral("USR1"), QStringLiteral("USR2"), QStringLiteral("TERM"), QStringLiteral("INT")};
}

} // namespace torchdeck
