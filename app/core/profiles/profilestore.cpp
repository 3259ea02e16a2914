#include "core/profiles/profilestore.h"

#include "core/appidentity.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
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

bool ProfileStore::save(QString *error) const
{
    if (m_broken) {
        *error = QStringLiteral("%1 could not be read; not overwriting it").arg(m_path);
        return false;
    }
    QJsonObject clusters;
    for (const ClusterProfile &profile : m_profiles)
        clusters.insert(profile.name, profile.toJson());
    QJsonObject root;
    root[u"clusters"] = clusters;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
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
