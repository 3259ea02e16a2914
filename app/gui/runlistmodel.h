#pragma once

#include "core/store/runrecord.h"

#include <QAbstractTableModel>

namespace torchdeck {

// The runs of the store, newest first, with the job ids of all their attempts. Updated row by row as the
// trackers report, so selections and scroll positions survive a refresh.
class RunListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ClusterColumn, StateColumn, EpochColumn, LossColumn, EtaColumn, JobsColumn,
                  CreatedColumn, ColumnCount };
    enum Role { RunIdRole = Qt::UserRole + 1, ClusterRole };

    explicit RunListModel(QObject *parent = nullptr);

    void setRuns(const QList<RunRecord> &runs, const QHash<QString, QStringList> &jobIds);
    // Replaces the run's row, or inserts it in created order (newest first) when it is new.
    void updateRun(const RunRecord &run, const QStringList &jobIds);
    const RunRecord *run(const QString &runId) const;
    int rowOf(const QString &runId) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const RunRecord &run, const QStringList &jobIds, int column) const;

    QList<RunRecord> m_runs;
    QList<QStringList> m_jobIds; // parallel to m_runs
};

// "1h 02m", "45s"; empty for an unknown duration.
QString formatDuration(double seconds);

} // namespace torchdeck
