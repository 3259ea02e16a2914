#include "gui/runtreemodel.h"

#include "core/scheduler/jobstate.h"

#include <QLocale>
#include <QRegularExpression>
#include <cmath>

namespace torchdeck {

namespace {
constexpr quintptr kTopLevel = 0; // internal id of cluster rows; run rows hold their group's row + 1

bool isActive(const RunRecord &run)
{
    return !run.hasEnded();
}

// Short enough for its column at 1366x768: the time today, the day this year, else the date.
QString shortTime(const QDateTime &utc)
{
    if (!utc.isValid())
        return {};
    const QDateTime local = utc.toLocalTime();
    const QDate today = QDate::currentDate();
    const QString format = local.date() == today                 ? QStringLiteral("HH:mm")
                           : local.date().year() == today.year() ? QStringLiteral("d MMM HH:mm")
                                                                 : QStringLiteral("d MMM yyyy");
    return QLocale().toString(local, format);
}
} // namespace

QString formatProgress(const RunRecord &run)
{
    if (run.epochsTotal > 0)
        return QObject::tr("epoch %1/%2").arg(run.epochsDone).arg(run.epochsTotal);
    return run.epochsDone > 0 ? QObject::tr("epoch %1").arg(run.epochsDone) : QString();
}

RunTreeModel::RunTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void RunTreeModel::setRuns(const QList<RunRecord> &runs, const QHash<QString, QStringList> &jobIds)
{
    beginResetModel();
    m_groups.clear();
    QList<RunRecord> sorted = runs;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const RunRecord &a, const RunRecord &b) { return a.created > b.created; });
    for (const RunRecord &run : std::as_const(sorted)) {
        int row = groupRow(run.cluster);
        if (row < 0) {
            auto at = std::lower_bound(m_groups.begin(), m_groups.end(), run.cluster,
                                       [](const Group &g, const QString &name) { return g.cluster < name; });
            row = int(at - m_groups.begin());
            m_groups.insert(at, Group{run.cluster, {}});
        }
        m_groups[row].entries.append(Entry{run, jobIds.value(run.id)});
    }
    endResetModel();
}

void RunTreeModel::updateRun(const RunRecord &run, const QStringList &jobIds)
{
    // A run continued on another cluster (`resume --on`) leaves its old cluster's group, which goes when empty.
    if (const QModelIndex before = indexOf(run.id); before.isValid()) {
        const int old = int(before.internalId() - 1);
        if (m_groups.at(old).cluster != run.cluster) {
            beginRemoveRows(index(old, 0), before.row(), before.row());
            m_groups[old].entries.removeAt(before.row());
            endRemoveRows();
            if (m_groups.at(old).entries.isEmpty()) {
                beginRemoveRows({}, old, old);
                m_groups.removeAt(old);
                endRemoveRows();
            } else {
                emit dataChanged(index(old, 0), index(old, ColumnCount - 1)); // the cluster's counts
            }
        }
    }
    int group = groupRow(run.cluster);
    if (group < 0) {
        auto at = std::lower_bound(m_groups.cbegin(), m_groups.cend(), run.cluster,
                                   [](const Group &g, const QString &name) { return g.cluster < name; });
        group = int(at - m_groups.cbegin());
        beginInsertRows({}, group, group);
        m_groups.insert(group, Group{run.cluster, {}});
        endInsertRows();
    }
    QList<Entry> &entries = m_groups[group].entries;
    const QModelIndex parentIndex = index(group, 0);
    const QModelIndex existing = indexOf(run.id);
    if (existing.isValid()) {
        entries[existing.row()] = Entry{run, jobIds};
        emit dataChanged(index(existing.row(), 0, parentIndex), index(existing.row(), ColumnCount - 1, parentIndex));
    } else {
        int at = 0;
        while (at < entries.size() && entries.at(at).run.created > run.created)
            ++at;
        beginInsertRows(parentIndex, at, at);
        entries.insert(at, Entry{run, jobIds});
        endInsertRows();
    }
    emit dataChanged(index(group, 0), index(group, ColumnCount - 1)); // the cluster's counts
}

const RunRecord *RunTreeModel::run(const QString &runId) const
{
    const QModelIndex at = indexOf(runId);
    return at.isValid() ? &m_groups.at(int(at.internalId() - 1)).entries.at(at.row()).run : nullptr;
}

QStringList RunTreeModel::jobIds(const QString &runId) const
{
    const QModelIndex at = indexOf(runId);
    return at.isValid() ? m_groups.at(int(at.internalId() - 1)).entries.at(at.row()).jobIds : QStringList();
}

QModelIndex RunTreeModel::indexOf(const QString &runId, int column) const
{
    for (int g = 0; g < m_groups.size(); ++g) {
        const QList<Entry> &entries = m_groups.at(g).entries;
        for (int row = 0; row < entries.size(); ++row) {
            if (entries.at(row).run.id == runId)
                return createIndex(row, column, quintptr(g) + 1);
        }
    }
    return {};
}

QModelIndex RunTreeModel::clusterIndex(const QString &cluster) const
{
    const int row = groupRow(cluster);
    return row < 0 ? QModelIndex() : index(row, 0);
}

int RunTreeModel::runCount() const
{
    int count = 0;
    for (const Group &group : m_groups)
        count += int(group.entries.size());
    return count;
}

int RunTreeModel::groupRow(const QString &cluster) const
{
    for (int row = 0; row < m_groups.size(); ++row) {
        if (m_groups.at(row).cluster == cluster)
            return row;
    }
    return -1;
}

QModelIndex RunTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return parent.isValid() ? createIndex(row, column, quintptr(parent.row()) + 1)
                            : createIndex(row, column, kTopLevel);
}

QModelIndex RunTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(int(child.internalId() - 1), 0, kTopLevel);
}

int RunTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.internalId() != kTopLevel || parent.column() != 0)
        return 0;
    return int(m_groups.at(parent.row()).entries.size());
}

int RunTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant RunTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == kTopLevel)
        return groupData(m_groups.at(index.row()), index.column(), role);
    return runData(m_groups.at(int(index.internalId() - 1)).entries.at(index.row()), index.column(), role);
}

QVariant RunTreeModel::groupData(const Group &group, int column, int role) const
{
    if (role == ClusterRole)
        return group.cluster;
    if (role != Qt::DisplayRole && role != FilterRole)
        return {};
    if (column != NameColumn)
        return {};
    // The window spans this cell over the row: the cluster and what it holds.
    const auto active =
        std::count_if(group.entries.cbegin(), group.entries.cend(), [](const Entry &e) { return isActive(e.run); });
    return QString(tr("%1: %n run(s)", nullptr, int(group.entries.size())).arg(group.cluster) +
                   (active > 0 ? tr(", %n active", nullptr, int(active)) : QString()));
}

QVariant RunTreeModel::runData(const Entry &entry, int column, int role) const
{
    const RunRecord &run = entry.run;
    switch (role) {
    case FilterRole:
        if (column == NameColumn)
            return QStringList{runData(entry, column, Qt::DisplayRole).toString(), run.tags.join(u' '), run.note}.join(
                u'\n');
        return runData(entry, column, Qt::DisplayRole);
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return run.name.isEmpty() ? run.id.left(8) : run.name;
        case StateColumn:
            return run.state;
        case ProgressColumn:
            return formatProgress(run);
        case EtaColumn:
            return isActive(run) ? formatDuration(run.etaSeconds) : QString();
        case LossColumn:
            return std::isfinite(run.lastLoss) ? QString::number(run.lastLoss, 'g', 4) : QString();
        case JobsColumn: // the latest job's id, and how many the run had
            if (entry.jobIds.size() <= 1)
                return entry.jobIds.value(0);
            return tr("%1 (%n jobs)", nullptr, int(entry.jobIds.size())).arg(entry.jobIds.constLast());
        case CreatedColumn:
            return shortTime(run.created);
        case UpdatedColumn:
            return shortTime(run.updated);
        default:
            return {};
        }
    case Qt::ToolTipRole:
        if (column == JobsColumn && !entry.jobIds.isEmpty())
            return tr("Jobs of this run, first to latest: %1").arg(entry.jobIds.join(QStringLiteral(", ")));
        if (column == CreatedColumn || column == UpdatedColumn) // the whole date and time
            return QLocale().toString((column == CreatedColumn ? run.created : run.updated).toLocalTime(),
                                      QLocale::LongFormat);
        if (column == NameColumn && (!run.tags.isEmpty() || !run.note.isEmpty()))
            return QStringList{run.id,
                               run.tags.isEmpty() ? QString() : tr("Tags: %1").arg(run.tags.join(QStringLiteral(", "))),
                               run.note, run.message}
                .filter(QRegularExpression(QStringLiteral(".")))
                .join(u'\n');
        return run.message.isEmpty() ? QVariant(run.id) : QVariant(QString(run.id + u'\n' + run.message));
    case Qt::TextAlignmentRole:
        return column == LossColumn || column == EtaColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                                           : QVariant();
    case RunIdRole:
        return run.id;
    case ClusterRole:
        return run.cluster;
    default:
        return {};
    }
}

QVariant RunTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    static const char *const names[] = {QT_TR_NOOP("Run"),       QT_TR_NOOP("State"),  QT_TR_NOOP("Progress"),
                                        QT_TR_NOOP("ETA"),       QT_TR_NOOP("Loss"),   QT_TR_NOOP("Latest job"),
                                        QT_TR_NOOP("Submitted"), QT_TR_NOOP("Updated")};
    return tr(names[section]);
}

} // namespace torchdeck
