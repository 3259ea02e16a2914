#pragma once

#include "core/schedulerkind.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck {

// How Slurm is asked for GPUs: --gpus-per-node=N (Slurm >= 19.05 with cons_tres) or --gres=gpu:N
// (older sites, or sites whose GPU gres has a type, which they then write as an extra directive).
enum class GpuRequestStyle { GpusPerNode, Gres };

// What is known about one partition (Slurm) or queue (PBS); -1/0 mean unknown.
struct PartitionCaps {
    QString name;
    int gpusPerNode = -1; // 0: a partition known to have no GPUs
    int cpusPerNode = 0;
    qint64 maxSeconds = -1; // its time limit; 0: none; -1: unknown
    int nodes = 0;
    qint64 memoryMiB = 0;      // per node
    QStringList gpuTypes = {}; // as its GRES names them ("a100")
    bool isDefault = false;
};

// Limits per job, from an association or a QOS; -1: none set.
struct JobLimits {
    qint64 maxWallSeconds = -1;
    int maxNodes = -1;
    int maxGpus = -1; // gres/gpu over the whole job
};

// One of the user's associations (Slurm accounting): an account they may charge, on one partition or on all.
struct AccountAccess {
    QString account;
    QString partition;  // empty: any
    QStringList qos;    // the QOS they may ask for
    QString defaultQos; // what a job that names none gets
    JobLimits limits;   // the association's own
};

struct QosLimits {
    QString name;
    JobLimits limits;
};

// What torchdeck knows of a cluster, from its profile and from `sinfo`/`pbsnodes` when it asked. Unknown
// facts are not checked: validation only rejects what is known to fail.
struct ClusterCaps {
    SchedulerKind scheduler = SchedulerKind::Slurm;
    PbsDialect pbsDialect = PbsDialect::PbsPro;
    GpuRequestStyle gpuRequest = GpuRequestStyle::GpusPerNode;
    QList<PartitionCaps> partitions; // empty: nothing known
    QString defaultPartition;        // used for the checks when the spec names none
    int cpusPerNode = 0;             // when no partition says; 0: unknown
    QString partitionsSource;        // where the partitions were read, for messages: "sinfo, 2026-11-28 15:40"
    QList<AccountAccess> accounts;   // empty: not known (no accounting, or never read)
    QList<QosLimits> qos;
    QString accountsSource; // "sacctmgr, read 2026-11-28 15:40"

    // The partition the spec runs on (or the default), if known.
    const PartitionCaps *partition(const QString &name) const
    {
        const QString wanted = name.isEmpty() ? defaultPartition : name;
        for (const PartitionCaps &p : partitions) {
            if (p.name == wanted)
                return &p;
        }
        return nullptr;
    }

    int cpusPerNodeOf(const QString &partitionName) const
    {
        const PartitionCaps *p = partition(partitionName);
        return p && p->cpusPerNode > 0 ? p->cpusPerNode : cpusPerNode;
    }
};

} // namespace torchdeck
