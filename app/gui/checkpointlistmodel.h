#pragma once

#include "core/store/runrecord.h"

#include <QAbstractTableModel>

namespace torchdeck {

// A run's checkpoints by step, as the store lists them; the last valid one is the "latest".
class CheckpointListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StepColumn, EpochColumn, SizeColumn, WrittenColumn, ReasonColumn, FileColumn, ColumnCount };
    enum Role { PathRole = Qt::UserRole + 1, ValidRole };

    explicit CheckpointListModel(QObject *parent = nullptr);

    void setCheckpoints(const QList<CheckpointRecord> &checkpoints);
    const QList<CheckpointRecord> &checkpoints() const { return m_checkpoints; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<CheckpointRecord> m_checkpoints;
};

} // namespace torchdeck
