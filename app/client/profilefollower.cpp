#include "client/profilefollower.h"

#include "core/profiles/profilestore.h"

#include <QDir>
#include <QFileInfo>

namespace torchdeck {

namespace {
constexpr int kSettleMs = 50;
} // namespace

ProfileFollower::ProfileFollower(ProfileStore *profiles, QObject *parent)
    : QObject(parent)
    , m_profiles(profiles)
    , m_told(profiles->profiles())
{
    m_settle.setSingleShot(true);
    m_settle.setInterval(kSettleMs);
    connect(&m_settle, &QTimer::timeout, this, &ProfileFollower::follow);
    // Saves replace the file (QSaveFile renames a new one over it): the folder's changes say so, and the file's
    // own say when something writes it in place (an editor).
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, &m_settle, qOverload<>(&QTimer::start));
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, &m_settle, qOverload<>(&QTimer::start));
    watch();
    m_settle.start(); // what was saved between the store's load and the watch
}

void ProfileFollower::watch()
{
    const QString file = m_profiles->path();
    const QString directory = QFileInfo(file).absolutePath();
    QDir().mkpath(directory); // made now, so that the first save in it is seen
    if (!m_watcher.directories().contains(directory))
        m_watcher.addPath(directory);
    if (QFileInfo::exists(file) && !m_watcher.files().contains(file))
        m_watcher.addPath(file); // again after each replacement
}

void ProfileFollower::follow()
{
    watch();
    QString error;
    if (!m_profiles->follow(&error))
        return emit failed(error);
    const QMap<QString, ClusterProfile> &now = m_profiles->profiles();
    QStringList changed;
    for (auto it = now.cbegin(); it != now.cend(); ++it) {
        if (const auto told = m_told.constFind(it.key()); told == m_told.cend() || !(*told == it.value()))
            changed.append(it.key());
    }
    for (auto it = m_told.cbegin(); it != m_told.cend(); ++it) {
        if (!now.contains(it.key()))
            changed.append(it.key());
    }
    m_told = now;
    if (!changed.isEmpty())
        emit followed(changed);
}

} // namespace torchdeck
