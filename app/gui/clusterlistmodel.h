#pragma once

#include "core/connectionstate.h"

#include <QAbstractListModel>

namespace torchdeck {

// The clusters the user can pick: the hosts of the ssh config and the saved profiles, each with the state
// of its connection (disconnected until the user connects).
class ClusterListModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { NameRole = Qt::UserRole + 1, StateRole, HasProfileRole };

    explicit ClusterListModel(QObject *parent = nullptr);

    // Aliases first in ssh-config order, then profiles the ssh config does not name.
    void setClusters(const QStringList &sshAliases, const QStringList &profileNames);
    void setState(const QString &name, ConnectionState state, const QString &detail);
    QStringList names() const;
    QStringList sshAliases() const; // the clusters the ssh config names
    int rowOf(const QString &name) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    struct Entry {
        QString name;
        bool inSshConfig = false;
        bool hasProfile = false;
        ConnectionState state = ConnectionState::Disconnected;
        QString detail;
    };
    QList<Entry> m_entries;
};

} // namespace torchdeck
