#pragma once

#include "core/metrics/serieskind.h"

#include <QAbstractTableModel>
#include <QPointer>

namespace torchdeck {

class RunMetrics;

// One series of a run as a table, rows in arrival order (discarded points included, flagged), for tables,
// CSV export and charts that map a model. Appends arrive as rowsInserted, discards as dataChanged.
// Charts of long series draw MetricSeries::decimated() instead of reading a million rows.
class SeriesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { XColumn, YColumn, AttemptColumn, DiscardedColumn, ColumnCount };
    enum Role {
        XRole = Qt::UserRole + 1, // double: step or epoch
        YRole,                    // double
        AttemptRole,              // int
        DiscardedRole,            // bool
    };

    SeriesModel(RunMetrics *run, SeriesKind kind, QObject *parent = nullptr);

    SeriesKind kind() const { return m_kind; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    void onAppended(SeriesKind kind, qsizetype first, qsizetype last);
    void onDiscarded(SeriesKind kind, qsizetype first, qsizetype last);
    int available() const;

    QPointer<RunMetrics> m_run;
    SeriesKind m_kind;
    int m_rows = 0; // rows announced so far: the series may already hold more
};

} // namespace torchdeck
