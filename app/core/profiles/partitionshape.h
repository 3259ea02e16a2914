#pragma once

#include "core/jobs/clustercaps.h"

#include <QByteArray>
#include <QJsonArray>
#include <QList>
#include <QString>

namespace torchdeck {

// A cluster's partitions as its scheduler describes them (Slurm: `sinfo`), read by `torchdeck check` and kept
// in the cluster's profile with the time they were read: the job form and `submit` refuse what they cannot run.

// One line per partition and node kind: name (the default one ends in '*'), time limit, nodes, CPUs and memory
// (MiB) per node, GRES.
QString sinfoPartitionsCommand();

// What that command printed, one PartitionCaps per partition (several kinds of node: the most any node has);
// lines it cannot read are passed over. `defaultPartition` gets the one marked '*'.
QList<PartitionCaps> parseSinfoPartitions(const QByteArray &output, QString *defaultPartition);

// PBS: the queues with their limits, `qstat -Q -f` ("Queue: NAME" then "key = value" lines): resources_max.walltime,
// resources_max.nodect (else resources_available.nodect), resources_max.ngpus where the queue sets it per chunk.
// Routing queues and those not enabled and started are left out (no job runs in them).
QString qstatQueuesCommand();
QList<PartitionCaps> parseQstatQueues(const QByteArray &output);

// "debug (default): no time limit, 2 nodes, 4 CPUs, 7.8 GiB per node; short: 30 min, ..."
QString describePartitions(const QList<PartitionCaps> &partitions);

// "30 min", "2 h", "1 day 12 h", "no time limit"
QString describeTimeLimit(qint64 seconds);

// The profile's JSON form: [{"name", "default", "max_seconds", "nodes", "cpus", "memory_mib", "gpus", "gpu_types"}].
QJsonArray partitionsToJson(const QList<PartitionCaps> &partitions);
QList<PartitionCaps> partitionsFromJson(const QJsonArray &array);

} // namespace torchdeck
