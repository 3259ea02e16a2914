#pragma once

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobspec.h"

#include <QList>
#include <QStringList>

namespace torchdeck {

// What the scheduler is asked for per node. srun starts T tasks of C CPUs; the per-node launcher and the
// local method start one task that hosts all T ranks, so it gets T x C CPUs (capped at the node's, when
// known, since the ranks then share them anyway).
struct AllocationShape {
    int tasksPerNode = 1;
    int cpusPerTask = 1;
    int gpusPerTask = 0;     // the one task of a per-node launcher gets all its ranks' GPUs
    bool overcommit = false; // more ranks x CPUs than the node has (known) or forced by the spec
};
AllocationShape allocationShape(const JobSpec &spec, const ClusterCaps &caps);

// A GPU count as Slurm's options take it: "4", or with the spec's type "a100:4".
QString gpuCount(const JobSpec &spec, int count);

// Whether the script looks for torchrun (the per-node launcher named "torchrun", outside a container) and
// falls back to `python3 -m torch.distributed.run` where none is on PATH: the array td_torchrun.
bool findsTorchrun(const JobSpec &spec);

// The torchrun options of the generated lines, in order: the underscore spellings, which every torchrun
// accepts (1.9 on); the dashed ones came with 2.0.
QStringList torchrunOptionNames();

// Whether the script exports MASTER_ADDR/MASTER_PORT: every method with ranks on several processes that
// rendezvous through the first host (not the local method, whose launcher picks its own).
bool exportsRendezvous(const JobSpec &spec);

// The launch command as shell text: groups of words (launcher, container, command), user values quoted,
// the script's own variables ("$MASTER_ADDR") as expansions. Assumes a validated spec.
struct LaunchCommand {
    QList<QStringList> groups;
    // One group per line, continued with backslashes, indented by `indent`.
    QString text(const QString &indent) const;
};
LaunchCommand buildLaunchCommand(const JobSpec &spec, const ClusterCaps &caps);

} // namespace torchdeck
