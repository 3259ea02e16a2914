#pragma once

#include "core/runs/checkpointinventory.h"
#include "core/store/runrecord.h"

#include <QAbstractTableModel>

namespace torchdeck {

// A run's checkpoints by step with their marks (latest, best by validation loss, set aside by a branch,
// deleted, on another cluster), as core/runs/checkpointinventory.h computes them.
class CheckpointListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        StepColumn,
        EpochColumn,
        SizeColumn,
        WrittenColumn,
        ReasonColumn,
        FileColumn,
        MarkColumn,
        ColumnCount
    };
    enum Role { PathRole = Qt::UserRole + 1, ValidRole, LatestRole, PresentRole };

    explicit CheckpointListModel(QObject *parent = nullptr);

    // Without knowing what is still on the cluster: every record counts as present.
    void setCheckpoints(const QList<CheckpointRecord> &checkpoints);
    // Those on another cluster than `runCluster` (a run continued elsewhere) are marked with theirs.
    void setEntries(const QList<CheckpointEntry> &entries, const QString &runCluster = {});
    const QList<CheckpointEntry> &entries() const { return m_entries; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<CheckpointEntry> m_entries;
    QString m_runCluster;
};

} // namespace torchdeck
