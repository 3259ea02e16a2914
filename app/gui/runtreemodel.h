#pragma once

#include "core/duration.h"
#include "core/store/runrecord.h"

#include <QAbstractItemModel>

namespace torchdeck {

// The runs of the store grouped by cluster: one top row per cluster (with how many runs are active), its
// runs below, newest first, each with its state, progress, ETA, the job ids of all its attempts and its
// times. Updated row by row as the trackers report, so selections and scroll positions survive a refresh.
class RunTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        StateColumn,
        ProgressColumn,
        EtaColumn,
        LossColumn,
        JobsColumn,
        CreatedColumn,
        UpdatedColumn,
        ColumnCount
    };
    // FilterRole: the text the window's filter box matches: a cell's, and with the name the run's tags and note.
    enum Role { RunIdRole = Qt::UserRole + 1, ClusterRole, FilterRole };

    explicit RunTreeModel(QObject *parent = nullptr);

    // Clusters in name order.
    void setRuns(const QList<RunRecord> &runs, const QHash<QString, QStringList> &jobIds);
    // Replaces the run's row, or inserts it in created order (newest first), under a new cluster row if
    // needed.
    void updateRun(const RunRecord &run, const QStringList &jobIds);
    const RunRecord *run(const QString &runId) const;
    QStringList jobIds(const QString &runId) const;
    QModelIndex indexOf(const QString &runId, int column = 0) const;
    QModelIndex clusterIndex(const QString &cluster) const;
    int runCount() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Entry {
        RunRecord run;
        QStringList jobIds;
    };
    struct Group {
        QString cluster;
        QList<Entry> entries; // newest first
    };
    QVariant runData(const Entry &entry, int column, int role) const;
    QVariant groupData(const Group &group, int column, int role) const;
    int groupRow(const QString &cluster) const;

    QList<Group> m_groups;
};

// "epoch 3/10", "epoch 3" (total unknown), empty before the first epoch of an unknown total.
QString formatProgress(const RunRecord &run);

} // namespace torchdeck
