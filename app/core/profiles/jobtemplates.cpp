#include "core/profiles/jobtemplates.h"

#include "core/appidentity.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace torchdeck {

QString JobTemplates::defaultPath()
{
    return configDirectory() + QStringLiteral("/job-templates.json");
}

JobTemplates::JobTemplates(QString path)
    : m_path(std::move(path))
{
}

bool JobTemplates::load(QString *error)
{
    m_specs.clear();
    m_broken = false;
    error->clear();
    QFile file(m_path);
    if (!file.exists())
        return true;
    QJsonParseError parseError;
    const QJsonDocument document =
        file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll(), &parseError) : QJsonDocument();
    if (!document.isObject() || !document.object().value(u"templates").isObject()) {
        m_broken = true;
        *error = QStringLiteral("%1 is not a torchdeck job template file; fix or remove it").arg(m_path);
        return false;
    }
    const QJsonObject templates = document.object().value(u"templates").toObject();
    QStringList unreadable;
    for (auto it = templates.constBegin(); it != templates.constEnd(); ++it) {
        const JobSpec::FromJson read = JobSpec::fromJson(it.value().toObject());
        if (it.value().isObject() && read.ok())
            m_specs.insert(it.key(), read.spec);
        else
            unreadable.append(it.key());
    }
    if (!unreadable.isEmpty())
        *error = QStringLiteral("job templates left out (written by another torchdeck?): %1")
                     .arg(unreadable.join(QStringLiteral(", ")));
    return true;
}

bool JobTemplates::save(QString *error) const
{
    if (m_broken) {
        *error = QStringLiteral("%1 could not be read; not overwriting it").arg(m_path);
        return false;
    }
    QJsonObject templates;
    for (auto it = m_specs.constBegin(); it != m_specs.constEnd(); ++it)
        templates.insert(it.key(), it.value().toJson());
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString());
        return false;
    }
    file.write(QJsonDocument(QJsonObject{{QStringLiteral("templates"), templates}}).toJson());
    if (!file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString());
        return false;
    }
    return true;
}

} // namespace torchdeck
