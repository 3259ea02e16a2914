#include "gui/clusterlistmodel.h"

#include <QBrush>
#include <QColor>
#include <algorithm>

namespace torchdeck {

ClusterListModel::ClusterListModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

void ClusterListModel::setClusters(const QStringList &sshAliases, const QStringList &profileNames)
{
    QList<Entry> entries;
    for (const QString &alias : sshAliases)
        entries.append({alias, true, profileNames.contains(alias), ConnectionState::Disconnected, {}});
    for (const QString &name : profileNames) {
        if (!sshAliases.contains(name))
            entries.append({name, false, true, ConnectionState::Disconnected, {}});
    }
    // Keep the states of clusters that stay: a reload must not hide a live connection.
    for (Entry &entry : entries) {
        const int row = rowOf(entry.name);
        if (row >= 0) {
            entry.state = m_entries.at(row).state;
            entry.detail = m_entries.at(row).detail;
        }
    }
    const auto sameName = [](const Entry &a, const Entry &b) { return a.name == b.name; };
    if (std::equal(entries.cbegin(), entries.cend(), m_entries.cbegin(), m_entries.cend(), sameName)) {
        // The same clusters (a profile saved for an ssh host): the views keep their selection.
        for (int row = 0; row < entries.size(); ++row) {
            Entry &entry = m_entries[row];
            if (entry.inSshConfig == entries.at(row).inSshConfig && entry.hasProfile == entries.at(row).hasProfile)
                continue;
            entry = entries.at(row);
            emit dataChanged(index(row), index(row));
        }
        return;
    }
    beginResetModel();
    m_entries = entries;
    endResetModel();
}

void ClusterListModel::setState(const QString &name, ConnectionState state, const QString &detail)
{
    const int row = rowOf(name);
    if (row < 0)
        return;
    m_entries[row].state = state;
    m_entries[row].detail = detail;
    emit dataChanged(index(row), index(row));
}

QStringList ClusterListModel::names() const
{
    QStringList names;
    for (const Entry &entry : m_entries)
        names.append(entry.name);
    return names;
}

QStringList ClusterListModel::sshAliases() const
{
    QStringList aliases;
    for (const Entry &entry : m_entries) {
        if (entry.inSshConfig)
            aliases.append(entry.name);
    }
    return aliases;
}

int ClusterListModel::rowOf(const QString &name) const
{
    for (int row = 0; row < m_entries.size(); ++row) {
        if (m_entries.at(row).name == name)
            return row;
    }
    return -1;
}

int ClusterListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

QVariant ClusterListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &entry = m_entries.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return QString(entry.name + QStringLiteral("  \u2014 ") + connectionStateName(entry.state));
    case Qt::ToolTipRole: {
        QString tip = entry.inSshConfig ? tr("Host of the ssh config") : tr("Saved profile (not in the ssh config)");
        if (!entry.detail.isEmpty())
            tip += QStringLiteral("\n") + entry.detail;
        return tip;
    }
    case Qt::ForegroundRole:
        if (entry.state == ConnectionState::Failed)
            return QBrush(QColor(0xc0, 0x30, 0x30));
        if (entry.state == ConnectionState::Connected)
            return QBrush(QColor(0x20, 0x90, 0x40));
        return {};
    case NameRole:
        return entry.name;
    case StateRole:
        return int(entry.state);
    case HasProfileRole:
        return entry.hasProfile;
    default:
        return {};
    }
}

} // namespace torchdeck
