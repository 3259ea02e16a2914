#pragma once

#include "core/scheduler/schedulercommands.h"

#include <QDateTime>

// The exact Slurm command lines torchdeck runs (argv, unquoted). The parsers expect these formats.
namespace torchdeck::slurm {

QStringList sbatchArgs(const QString &scriptPath, const SubmitDependency &after = {});
QStringList squeueArgs(const QStringList &ids);                     // parseSqueue
QStringList squeueNamedArgs(const QString &jobName);                // parseSqueue, every job of that name
QStringList sacctArgs(const QStringList &ids, bool completionFile); // parseSacct
// parseSacct: the user's jobs of that name that started since `since` (sacct's default is today only).
QStringList sacctNamedArgs(const QString &jobName, const QDateTime &since, bool completionFile);
QStringList scontrolShowJobArgs();                                  // parseScontrolShowJob, all jobs
QStringList actionArgs(SchedulerAction action,
                       const QStringList &ids); // scancel, scontrol requeue/hold/release

} // namespace torchdeck::slurm
