#pragma once

#include "core/profiles/clusterprofile.h"

#include <QFileSystemWatcher>
#include <QMap>
#include <QObject>
#include <QTimer>

namespace torchdeck {

class ProfileStore;

// A front's profiles following their file as it is saved: the agent keeps each cluster's shape there as it reads
// it (partitions, accounts), another front, or this one, saves its edits. followed() names the profiles that
// changed since it last told (whoever changed them); what this front put and did not save yet stays
// (ProfileStore::follow).
class ProfileFollower : public QObject {
    Q_OBJECT
public:
    explicit ProfileFollower(ProfileStore *profiles, QObject *parent = nullptr);

signals:
    void followed(const QStringList &clusters);
    void failed(const QString &error); // the file cannot be read now: the profiles stay as they were

private:
    void watch();
    void follow();

    ProfileStore *m_profiles;
    QMap<QString, ClusterProfile> m_told; // the profiles as followed() last found them
    QFileSystemWatcher m_watcher;
    QTimer m_settle; // one read for the few changes one save makes (its lock, its temporary file, the rename)
};

} // namespace torchdeck
