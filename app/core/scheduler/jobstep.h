#pragma once

#include <QString>

namespace torchdeck {

// Running a script inside a running Slurm job's allocation, on each of its nodes, from the login node: one
// `srun --overlap` step (it shares the job's resources and needs no accounting), labelled by task so each
// node's lines can be told apart, ended after `timeoutSeconds` when it cannot start (a drained node).
QString slurmOverlapStepCommand(const QString &jobId, const QString &nodes, const QString &stepName, int timeoutSeconds,
                                const QString &script);

// srun's --jobid option for a job id (an array task's found by squeue), quoted.
QString srunJobOption(const QString &jobId);
// One command in a bash login shell inside the running job's allocation, on `node` (empty: Slurm's choice, its first),
// as a step that overlaps the job's own: `torchdeck shell RUN --command CMD`.
QString slurmJobCommand(const QString &jobId, const QString &node, const QString &command);
// An interactive login shell there, on the step's own pseudo-terminal (srun --pty): `torchdeck shell RUN`.
QString slurmJobShell(const QString &jobId, const QString &node);

// A shell snippet that leaves in $on the /proc/PID/environ files of the job's processes on this node (their
// environment names the job, SLURM_JOB_ID or `jobVariable`=$j, and under Slurm the node, $n) and in $own those of
// the calling step, to be passed over: `case "$own" in *" $f "*) continue;; esac`.
QString jobProcessesScript(const QString &jobVariable = QStringLiteral("SLURM_JOB_ID"));

} // namespace torchdeck
