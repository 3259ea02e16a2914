#pragma once

#include "core/metrics/resourcesample.h"
#include "core/schedulerkind.h"

#include <QByteArray>
#include <QString>

namespace torchdeck {

// How torchdeck samples what a running job uses: one command on the login node per job and sample.
// Slurm: a step inside the allocation on each of the job's nodes (`srun --overlap --jobid`, which needs no
// accounting) runs nvidia-smi and reads /proc for the job's own processes (those whose environment names the
// job and the node, this step's excepted), grouped by rank (RANK, else SLURM_PROCID); where that step cannot
// run, `sstat` gives each step's average instead (where the site gathers accounting). PBS: `qstat -f` for
// resources_used (the whole job), and nvidia-smi over ssh on the job's first node.

// The command; `nodes` as the scheduler prints them (Slurm's NodeList, PBS's hosts); empty for a local run.
QString resourceProbeCommand(SchedulerKind kind, PbsDialect dialect, const QString &jobId, const QString &nodes);

struct ResourceProbeResult {
    ResourceSample sample; // time left unset: the caller's clock
    QString error;         // the output held nothing to read
};

// The probe's standard output, read; the CPU percent is left to computeCpuPercent.
ResourceProbeResult parseResourceProbe(SchedulerKind kind, const QByteArray &output);
// Whether what the probe printed on stderr says the job ended while it was sampled ("sstat: error: No steps
// running for job N", srun's "Job/step already completing or completed", qstat's "Job has finished"): no
// problem to show, the next poll says how it ended.
bool probeRacedJobEnd(const QByteArray &errorOutput);

// sstat --noheader --parsable2 --allsteps --format=JobID,NTasks,NodeList,AveCPU,AveRSS, its lines maybe prefixed
// "@sstat ": a task per step (its average times its task count); lines of no step are passed over.
QList<TaskUse> parseSstat(const QByteArray &output);

// nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits, one line
// ("0, 87, 31245, 81559"); false for anything else ("[N/A]" values are left unknown).
bool parseNvidiaSmiLine(QStringView line, const QString &node, GpuUse *gpu);

} // namespace torchdeck
