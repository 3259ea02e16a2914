#pragma once

#include "core/metrics/runseries.h"
#include "core/store/runrecord.h"

#include <QStringList>

namespace torchdeck {

// A run's checkpoints as the fronts list them: what the store recorded, marked with what is still on the
// cluster (the trainer prunes all but the newest K and the best), the latest (the one a resume starts from),
// the best by validation loss, and those a branch set aside.
struct CheckpointEntry {
    CheckpointRecord record;
    bool present = false;
    bool latest = false;
    bool best = false;
    bool setAside = false; // in a superseded-a<N>/ directory: a resume from an older one replaced its line
};

// One command that prints, a line each, the checkpoint files that exist in the folders of `checkpoints` on
// the cluster (its length grows with the folders, not with the checkpoints).
QString presentCheckpointsCommand(const QList<CheckpointRecord> &checkpoints);
QStringList parsePresentCheckpoints(const QByteArray &commandOutput);

// The marks; `series` gives the validation loss of each epoch (the best is an end-of-epoch checkpoint).
QList<CheckpointEntry> markCheckpoints(const QList<CheckpointRecord> &checkpoints, const QStringList &present,
                                       const RunSeries &series);

// Which files `wanted` (file names or steps, as listed) name; an error instead when one names nothing or
// the latest checkpoint, which a resume needs.
struct CheckpointDeletion {
    QStringList paths;
    QString error;
};
CheckpointDeletion planCheckpointDeletion(const QList<CheckpointEntry> &entries, const QStringList &wanted);
// Removes the checkpoints and their sidecars.
QString deleteCheckpointsCommand(const QStringList &paths);

} // namespace torchdeck
