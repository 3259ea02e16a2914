#pragma once

#include "core/scheduler/schedulercommands.h"

// The exact PBS command lines torchdeck runs (argv, unquoted).
namespace torchdeck::pbs {

QStringList qsubArgs(const QString &scriptPath, const SubmitDependency &after = {});
// PbsPro: qstat -f -F json -x IDS (running and finished jobs in one reply, parseQstatJson);
// Torque: qstat -f IDS (finished jobs stay listed as C for keep_completed, parseQstatFull).
QStringList qstatArgs(const QStringList &ids, PbsDialect dialect);
// qdel, qrerun, qhold, qrls. slurm-wlm-torque 22.05's qrerun always fails (a Perl API mismatch): on the
// sandbox, requeue from outside (a follow-up job) or with scontrol.
QStringList actionArgs(SchedulerAction action, const QStringList &ids);

} // namespace torchdeck::pbs
