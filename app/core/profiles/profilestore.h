#pragma once

#include "core/profiles/clusterprofile.h"

#include <QMap>
#include <QSet>
#include <functional>
#include <optional>

namespace torchdeck {

// The profiles the user saved, one JSON file ({"clusters": {"<alias>": {...}}}), written atomically. Fronts and
// the agent write it (the agent keeps each cluster's shape fresh): save() merges under a lock file, so each
// writes only the profiles it changed, and a cluster's shape is the one read last, whoever read it.
class ProfileStore {
public:
    // configDirectory()/clusters.json: $TORCHDECK_CONFIG_DIR, else ~/.config/torchdeck
    static QString defaultPath();

    explicit ProfileStore(QString path = defaultPath());

    // A missing file is an empty store. A broken one is an error, and save() then refuses to overwrite it.
    bool load(QString *error);
    bool save(QString *error);
    // Takes what the file holds now (another writer saved it: the agent's read of a shape, another front), keeping
    // what was put or removed here and not saved yet, with the newer shapes taken into it. A broken file changes
    // nothing here.
    bool follow(QString *error);
    // Changes one profile as the file holds it now, under the lock (the agent's writes: nothing else of it is
    // taken from this store's older copy). This store then holds what the file holds.
    bool update(const QString &name, const std::function<void(ClusterProfile &)> &change, QString *error);

    QString path() const { return m_path; }
    // The saved profile, or the built-in default of that name.
    ClusterProfile profile(const QString &name) const;
    bool contains(const QString &name) const { return m_profiles.contains(name); }
    void put(const ClusterProfile &profile)
    {
        m_profiles.insert(profile.name, profile);
        m_changed.insert(profile.name);
    }
    bool remove(const QString &name)
    {
        if (m_profiles.remove(name) == 0)
            return false; // one it does not know of is not its to remove
        m_changed.insert(name);
        return true;
    }
    // Takes back an edit that could not be saved: the store holds `held` again (none: no profile of that name),
    // as not changed here, so that following the file takes what other writers save of it.
    void revert(const QString &name, const std::optional<ClusterProfile> &held);
    QStringList names() const { return m_profiles.keys(); }
    const QMap<QString, ClusterProfile> &profiles() const { return m_profiles; } // all it holds, by name

private:
    QString m_path;
    QMap<QString, ClusterProfile> m_profiles;
    QSet<QString> m_changed; // put or removed since the last load or save
    bool m_broken = false;
    bool write(QString *error) const;
    void mergeUnsavedInto(QMap<QString, ClusterProfile> &disk) const; // what was put or removed here, over disk's
    bool underLock(const std::function<void(QMap<QString, ClusterProfile> &)> &edit, QString *error);
};

} // namespace torchdeck
