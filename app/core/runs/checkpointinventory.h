#pragma once

#include "core/metrics/runseries.h"
#include "core/store/runrecord.h"

#include <QHash>
#include <QMap>
#include <QStringList>

namespace torchdeck {

// A run's checkpoints as the fronts list them: what the store recorded, marked with what is still on the
// cluster (the trainer prunes all but the newest K and the best), the latest (the one a resume starts from),
// the best by validation loss, and those a branch set aside.
struct CheckpointEntry {
    CheckpointRecord record;
    QString cluster;     // where it lies (CheckpointPlaces)
    bool checked = true; // false: its cluster was not reached, so `present` is not known
    bool present = false;
    bool latest = false; // the newest on its cluster: what a resume there starts from
    bool best = false;
    bool setAside = false; // in a superseded-a<N>/ directory: a resume from an older one replaced its line
};

// Where a run's checkpoints lie: on the cluster their attempt ran on (a record of a job without one: the run's). A
// run continued on another cluster has some on each; the run's cluster is where it goes on.
class CheckpointPlaces {
public:
    CheckpointPlaces() = default;
    CheckpointPlaces(const QString &runCluster, const QList<JobRecord> &jobs);

    QString of(const CheckpointRecord &checkpoint) const;
    QList<CheckpointRecord> on(const QString &cluster, const QList<CheckpointRecord> &checkpoints) const;
    // The clusters that hold some of `checkpoints`: the run's first, then in the order of their attempts.
    QStringList clusters(const QList<CheckpointRecord> &checkpoints) const;
    // Every one of `checkpoints` as present, by the cluster it lies on: markCheckpoints's `present` before (or
    // without) asking the clusters.
    QHash<QString, QStringList> asRecorded(const QList<CheckpointRecord> &checkpoints) const;
    const QString &runCluster() const { return m_runCluster; }

private:
    QString m_runCluster;
    QHash<int, QString> m_clusterOfAttempt;
};

// One command that prints, a line each, the checkpoint files that exist in the folders of `checkpoints` on
// the cluster (its length grows with the folders, not with the checkpoints).
QString presentCheckpointsCommand(const QList<CheckpointRecord> &checkpoints);
QStringList parsePresentCheckpoints(const QByteArray &commandOutput);

// The marks; `series` gives the validation loss of each epoch (the best is an end-of-epoch checkpoint). `present`
// holds the files each cluster listed, by its name: a cluster missing from it was not reached, and its checkpoints
// are unchecked (never the latest).
QList<CheckpointEntry> markCheckpoints(const QList<CheckpointRecord> &checkpoints, const CheckpointPlaces &places,
                                       const QHash<QString, QStringList> &present, const RunSeries &series);
// The checkpoints of one cluster, and what it listed.
QList<CheckpointEntry> markCheckpoints(const QList<CheckpointRecord> &checkpoints, const QStringList &present,
                                       const RunSeries &series);

// Which files `wanted` (file names or steps, as listed) name; an error instead when one names nothing or
// the latest checkpoint, which a resume needs.
struct CheckpointDeletion {
    QStringList paths;
    QMap<QString, QStringList> byCluster; // the paths, by the cluster each lies on
    QString error;
};
CheckpointDeletion planCheckpointDeletion(const QList<CheckpointEntry> &entries, const QStringList &wanted);
// Removes the checkpoints and their sidecars.
QString deleteCheckpointsCommand(const QStringList &paths);

} // namespace torchdeck
