#pragma once

#include "core/profiles/clusterprofile.h"

#include <QMap>

namespace torchdeck {

// The profiles the user saved, one JSON file ({"clusters": {"<alias>": {...}}}), written atomically.
class ProfileStore {
public:
    // configDirectory()/clusters.json: $TORCHDECK_CONFIG_DIR, else ~/.config/torchdeck
    static QString defaultPath();

    explicit ProfileStore(QString path = defaultPath());

    // A missing file is an empty store. A broken one is an error, and save() then refuses to overwrite it.
    bool load(QString *error);
    bool save(QString *error) const;

    QString path() const { return m_path; }
    // The saved profile, or the built-in default of that name.
    ClusterProfile profile(const QString &name) const;
    bool contains(const QString &name) const { return m_profiles.contains(name); }
    void put(const ClusterProfile &profile) { m_profiles.insert(profile.name, profile); }
    bool remove(const QString &name) { return m_profiles.remove(name) > 0; }
    QStringList names() const { return m_profiles.keys(); }

private:
    QString m_path;
    QMap<QString, ClusterProfile> m_profiles;
    bool m_broken = false;
};

} // namespace torchdeck
