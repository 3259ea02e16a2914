#include "gui/runlistmodel.h"

#include <QLocale>

#include <cmath>

namespace torchdeck {

QString formatDuration(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return {};
    const qint64 s = qRound64(seconds);
    if (s < 60)
        return QStringLiteral("%1s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1m %2s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1h %2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

RunListModel::RunListModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RunListModel::setRuns(const QList<RunRecord> &runs, const QHash<QString, QStringList> &jobIds)
{
    beginResetModel();
    m_runs = runs;
    m_jobIds.clear();
    for (const RunRecord &run : runs)
        m_jobIds.append(jobIds.value(run.id));
    endResetModel();
}

void RunListModel::updateRun(const RunRecord &run, const QStringList &jobIds)
{
    const int row = rowOf(run.id);
    if (row >= 0) {
        m_runs[row] = run;
        m_jobIds[row] = jobIds;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        return;
    }
    int at = 0;
    while (at < m_runs.size() && m_runs.at(at).created > run.created)
        ++at;
    beginInsertRows({}, at, at);
    m_runs.insert(at, run);
    m_jobIds.insert(at, jobIds);
    endInsertRows();
}

const RunRecord *RunListModel::run(const QString &runId) const
{
    const int row = rowOf(runId);
    return row < 0 ? nullptr : &m_runs.at(row);
}

int RunListModel::rowOf(const QString &runId) const
{
    for (int row = 0; row < m_runs.size(); ++row) {
        if (m_runs.at(row).id == runId)
            return row;
    }
    return -1;
}

int RunListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_runs.size());
}

int RunListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::display(const RunRecord &run, const QStringList &jobIds, int column) const
{
    switch (column) {
    case NameColumn: return run.name.isEmpty() ? run.id.left(8) : run.name;
    case ClusterColumn: return run.cluster;
    case StateColumn: return run.state;
    case EpochColumn:
        return run.epochsTotal > 0 ? QStringLiteral("%1/%2").arg(run.epochsDone).arg(run.epochsTotal)
                                   : QString::number(run.epochsDone);
    case LossColumn: return std::isfinite(run.lastLoss) ? QString::number(run.lastLoss, 'g', 4) : QString();
    case EtaColumn: return formatDuration(run.etaSeconds);
    case JobsColumn: return jobIds.join(QStringLiteral(", "));
    case CreatedColumn: return QLocale().toString(run.created.toLocalTime(), QLocale::ShortFormat);
    default: return {};
    }
}

QVariant RunListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunRecord &run = m_runs.at(index.row());
    switch (role) {
    case Qt::DisplayRole: return display(run, m_jobIds.at(index.row()), index.column());
    case Qt::ToolTipRole: return run.message.isEmpty() ? QVariant(run.id) : QVariant(QString(run.id + u'\n' + run.message));
    case Qt::TextAlignmentRole:
        return index.column() == EpochColumn || index.column() == LossColumn || index.column() == EtaColumn
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    case RunIdRole: return run.id;
    case ClusterRole: return run.cluster;
    default: return {};
    }
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    static const char *const names[] = {"Name", "Cluster", "State", "Epoch", "Loss", "ETA", "Jobs", "Created"};
    return tr(names[section]);
}

} // namespace torchdeck
