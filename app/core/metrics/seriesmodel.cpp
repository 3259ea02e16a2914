#include "core/metrics/seriesmodel.h"

#include "core/metrics/runmetrics.h"

#include <limits>

namespace torchdeck {

SeriesModel::SeriesModel(RunMetrics *run, SeriesKind kind, QObject *parent)
    : QAbstractTableModel(parent)
    , m_run(run)
    , m_kind(kind)
{
    m_rows = available();
    if (run == nullptr)
        return;
    connect(run, &RunMetrics::pointsAppended, this, &SeriesModel::onAppended);
    connect(run, &RunMetrics::pointsDiscarded, this, &SeriesModel::onDiscarded);
    connect(run, &RunMetrics::aboutToReplace, this, [this] { beginResetModel(); });
    connect(run, &RunMetrics::replaced, this, [this] {
        m_rows = available();
        endResetModel();
    });
    connect(run, &QObject::destroyed, this, [this] {
        beginResetModel();
        m_rows = 0;
        endResetModel();
    });
}

int SeriesModel::available() const
{
    if (m_run.isNull())
        return 0;
    // A table view cannot address more rows than an int.
    return static_cast<int>(qMin<qsizetype>(m_run->series(m_kind).size(), std::numeric_limits<int>::max()));
}

int SeriesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int SeriesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SeriesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_run)
        return {};
    const MetricSeries &s = m_run->series(m_kind);
    const qsizetype row = index.row();
    switch (role) {
    case XRole:
        return s.x(row);
    case YRole:
        return s.y(row);
    case AttemptRole:
        return s.attempt(row);
    case DiscardedRole:
        return s.isDiscarded(row);
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case XColumn:
            return static_cast<qint64>(s.x(row)); // steps and epochs are whole numbers
        case YColumn:
            return s.y(row);
        case AttemptColumn:
            return s.attempt(row);
        case DiscardedColumn:
            return s.isDiscarded(row);
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant SeriesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case XColumn:
        return seriesXName(m_kind);
    case YColumn:
        return seriesName(m_kind);
    case AttemptColumn:
        return QStringLiteral("attempt");
    case DiscardedColumn:
        return QStringLiteral("discarded");
    default:
        return {};
    }
}

QHash<int, QByteArray> SeriesModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(XRole, "x");
    names.insert(YRole, "y");
    names.insert(AttemptRole, "attempt");
    names.insert(DiscardedRole, "discarded");
    return names;
}

void SeriesModel::onAppended(SeriesKind kind, qsizetype, qsizetype)
{
    if (kind != m_kind)
        return;
    const int rows = available();
    if (rows <= m_rows)
        return;
    beginInsertRows({}, m_rows, rows - 1);
    m_rows = rows;
    endInsertRows();
}

void SeriesModel::onDiscarded(SeriesKind kind, qsizetype first, qsizetype last)
{
    if (kind != m_kind || first >= m_rows)
        return; // rows not announced yet carry their flag when they are
    const int to = static_cast<int>(qMin<qsizetype>(last, m_rows - 1));
    emit dataChanged(index(static_cast<int>(first), 0), index(to, ColumnCount - 1),
                     {DiscardedRole, Qt::DisplayRole, Qt::EditRole});
}

} // namespace torchdeck
