#pragma once

#include <QStringList>

namespace torchdeck {

struct ClusterProfile;

// Building the trainer in a Slurm job: the login-node build's command, run behind a job step that blocks and
// streams its output (srun), on one node with the profile's build CPUs, partition and account. The PBS twin,
// which has no blocking step, is core/runs/pbsbuildjob.h.
QStringList slurmBuildLauncher(const ClusterProfile &profile);

} // namespace torchdeck
