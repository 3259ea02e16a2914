#pragma once

namespace torchdeck {

// Which batch system a cluster runs: shared by job scripts (core/jobs) and scheduler commands
// (core/scheduler).
enum class SchedulerKind { Slurm, Pbs, Local };

// Which PBS. PbsPro (PBS Professional, OpenPBS): `-l select=N:ncpus=..:mpiprocs=..:ngpus=..`, qstat -f -F
// json, qstat -x history, "F" finished. Torque, and Slurm's PBS wrapper slurm-wlm-torque (the sandbox):
// `-l nodes=N:ppn=M[:gpus=G]`, "C" completed, no history.
enum class PbsDialect { PbsPro, Torque };

} // namespace torchdeck
