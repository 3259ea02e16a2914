#include "core/profiles/profilestore.h"

#include "core/appidentity.h"
#include "core/coretr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLockFile>
#include <QSaveFile>

namespace torchdeck {

QString ProfileStore::defaultPath()
{
    return configDirectory() + QStringLiteral("/clusters.json");
}

ProfileStore::ProfileStore(QString path)
    : m_path(std::move(path))
{
}

bool ProfileStore::load(QString *error)
{
    m_profiles.clear();
    m_changed.clear();
    m_broken = false;
    QFile file(m_path);
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(m_path, file.errorString());
        m_broken = true;
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!document.isObject()) {
        *error = QStringLiteral("%1 is not a torchdeck profile file (%2); fix or remove it")
                     .arg(m_path, parseError.error == QJsonParseError::NoError ? QStringLiteral("not an object")
                                                                               : parseError.errorString());
        m_broken = true;
        return false;
    }
    const QJsonValue clustersValue = document.object().value(u"clusters");
    if (!clustersValue.isUndefined() && !clustersValue.isObject()) {
        *error = QStringLiteral("%1: \"clusters\" must be an object; fix or remove it").arg(m_path);
        m_broken = true;
        return false;
    }
    const QJsonObject clusters = clustersValue.toObject();
    for (auto it = clusters.begin(); it != clusters.end(); ++it) {
        QString problem = QStringLiteral("%1: must be an object").arg(it.key());
        ClusterProfile profile;
        if (it.value().isObject())
            profile = ClusterProfile::fromJson(it.key(), it.value().toObject(), &problem);
        if (!problem.isEmpty()) {
            *error = m_path + QStringLiteral(": ") + problem;
            m_broken = true;
            return false;
        }
        m_profiles.insert(it.key(), profile);
    }
    return true;
}

bool ProfileStore::follow(QString *error)
{
    ProfileStore disk(m_path);
    if (!disk.load(error))
        return false;
    mergeUnsavedInto(disk.m_profiles);
    m_profiles = disk.m_profiles;
    m_broken = false;
    return true;
}

void ProfileStore::revert(const QString &name, const std::optional<ClusterProfile> &held)
{
    if (held)
        m_profiles.insert(name, *held);
    else
        m_profiles.remove(name);
    m_changed.remove(name);
}

void ProfileStore::mergeUnsavedInto(QMap<QString, ClusterProfile> &disk) const
{
    for (const QString &name : std::as_const(m_changed)) {
        if (!m_profiles.contains(name)) {
            disk.remove(name);
            continue;
        }
        ClusterProfile mine = m_profiles.value(name);
        if (const auto theirs = disk.constFind(name); theirs != disk.cend())
            mine.adoptNewerShape(*theirs);
        disk.insert(name, mine);
    }
}

bool ProfileStore::save(QString *error)
{
    if (m_broken) {
        *error = QStringLiteral("%1 could not be read; not overwriting it").arg(m_path);
        return false;
    }
    return underLock([this](QMap<QString, ClusterProfile> &disk) { mergeUnsavedInto(disk); }, error);
}

bool ProfileStore::update(const QString &name, const std::function<void(ClusterProfile &)> &change, QString *error)
{
    return underLock(
        [&](QMap<QString, ClusterProfile> &disk) {
            ClusterProfile profile = disk.value(name, defaultProfile(name));
            change(profile);
            disk.insert(name, profile);
        },
        error);
}

bool ProfileStore::underLock(const std::function<void(QMap<QString, ClusterProfile> &)> &edit, QString *error)
{
    const QString directory = QFileInfo(m_path).absolutePath();
    if (!QDir().mkpath(directory)) {
        *error = core::Tr::tr("cannot write %1: its directory %2 cannot be made").arg(m_path, directory);
        return false;
    }
    QLockFile lock(m_path + QStringLiteral(".lock"));
    lock.setStaleLockTime(10000); // a writer killed while holding it
    if (!lock.tryLock(10000)) {
        *error = lock.error() == QLockFile::LockFailedError
                     ? core::Tr::tr("cannot write %1: another torchdeck holds %1.lock").arg(m_path)
                     : core::Tr::tr("cannot write %1: its lock file %1.lock cannot be made (is %2 writable?)")
                           .arg(m_path, directory);
        return false;
    }
    ProfileStore disk(m_path);
    if (!disk.load(error))
        return false;
    edit(disk.m_profiles);
    if (!disk.write(error))
        return false;
    m_profiles = disk.m_profiles;
    m_changed.clear();
    m_broken = false;
    return true;
}

bool ProfileStore::write(QString *error) const
{
    QJsonObject clusters;
    for (const ClusterProfile &profile : m_profiles)
        clusters.insert(profile.name, profile.toJson());
    QJsonObject root;
    root[u"clusters"] = clusters;
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(root).toJson()) < 0 || !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString());
        return false;
    }
    return true;
}

ClusterProfile ProfileStore::profile(const QString &name) const
{
    return m_profiles.value(name, defaultProfile(name));
}

} // namespace torchdeck
