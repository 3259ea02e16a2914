#include "gui/checkpointlistmodel.h"

#include <QDateTime>
#include <QLocale>
#include <cmath>

namespace torchdeck {

CheckpointListModel::CheckpointListModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CheckpointListModel::setCheckpoints(const QList<CheckpointRecord> &checkpoints)
{
    QStringList all;
    for (const CheckpointRecord &c : checkpoints)
        all.append(c.path);
    setEntries(markCheckpoints(checkpoints, all, RunSeries{}));
}

void CheckpointListModel::setEntries(const QList<CheckpointEntry> &entries, const QString &runCluster)
{
    beginResetModel();
    m_entries = entries;
    m_runCluster = runCluster;
    endResetModel();
}

int CheckpointListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int CheckpointListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CheckpointListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CheckpointEntry &entry = m_entries.at(index.row());
    const CheckpointRecord &checkpoint = entry.record;
    if (role == PathRole)
        return checkpoint.path;
    if (role == ValidRole)
        return checkpoint.valid;
    if (role == LatestRole)
        return entry.latest;
    if (role == PresentRole)
        return entry.present;
    if (role == Qt::ToolTipRole)
        return checkpoint.valid ? checkpoint.path : QString(checkpoint.path + tr("\n(torn or failed its check)"));
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case StepColumn:
        return checkpoint.step >= 0 ? QVariant(checkpoint.step) : QVariant();
    case EpochColumn:
        return checkpoint.epoch >= 0 ? QVariant(checkpoint.epoch) : QVariant();
    case SizeColumn:
        return checkpoint.bytes >= 0 ? QLocale().formattedDataSize(checkpoint.bytes) : QString();
    case WrittenColumn:
        return std::isfinite(checkpoint.time)
                   ? QLocale().toString(QDateTime::fromMSecsSinceEpoch(qint64(checkpoint.time * 1000)),
                                        QLocale::ShortFormat)
                   : QString();
    case ReasonColumn:
        return checkpoint.valid ? checkpoint.reason : QString(checkpoint.reason + tr(" (invalid)"));
    case FileColumn:
        return checkpoint.path.section(u'/', -1);
    case MarkColumn: {
        QStringList marks;
        if (entry.latest)
            marks.append(tr("latest"));
        if (entry.best)
            marks.append(tr("best val loss"));
        if (!entry.cluster.isEmpty() && entry.cluster != m_runCluster)
            marks.append(tr("on %1").arg(entry.cluster));
        if (!entry.checked)
            marks.append(tr("not checked"));
        else if (!entry.present)
            marks.append(tr("gone: rotated out (--keep) or deleted"));
        else if (entry.setAside)
            marks.append(tr("set aside by a branch"));
        return marks.join(QStringLiteral(", "));
    }
    default:
        return {};
    }
}

QVariant CheckpointListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    static const char *const names[] = {QT_TR_NOOP("Step"),
                                        QT_TR_NOOP("Epoch"),
                                        QT_TR_NOOP("Size"),
                                        QT_TR_NOOP("Written"),
                                        QT_TR_NOOP("Reason"),
                                        QT_TR_NOOP("File"),
                                        ""};
    return tr(names[section]);
}

} // namespace torchdeck
