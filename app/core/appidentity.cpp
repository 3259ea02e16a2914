#include "core/appidentity.h"

#include "core/coretr.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace torchdeck {

namespace {

QString directory(const char *variable, QStandardPaths::StandardLocation base)
{
    const QString chosen = qEnvironmentVariable(variable);
    return chosen.isEmpty() ? QStandardPaths::writableLocation(base) + QStringLiteral("/torchdeck") : chosen;
}

} // namespace

QString desktopFileName()
{
    return QStringLiteral("org.torchdeck.torchdeck");
}

void setApplicationIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("torchdeck"));
    QCoreApplication::setOrganizationDomain(QStringLiteral("torchdeck.org"));
    QCoreApplication::setApplicationName(QStringLiteral("torchdeck"));
    QCoreApplication::setApplicationVersion(torchdeckVersion());
}

QString torchdeckVersion()
{
    return QStringLiteral(TORCHDECK_VERSION);
}

QString configDirectory()
{
    return directory("TORCHDECK_CONFIG_DIR", QStandardPaths::GenericConfigLocation);
}

QString dataDirectory()
{
    return directory("TORCHDECK_DATA_DIR", QStandardPaths::GenericDataLocation);
}

SettingsMigration migrateLegacySettings()
{
    SettingsMigration result;
    // QSettings' own fallback when no organization is set.
    const QSettings legacy(QSettings::NativeFormat, QSettings::UserScope, QStringLiteral("Unknown Organization"),
                           QCoreApplication::applicationName());
    if (!QFileInfo::exists(legacy.fileName()))
        return result;
    result.from = legacy.fileName();
    QSettings current;
    const QStringList keys = legacy.allKeys();
    for (const QString &key : keys) {
        if (current.contains(key))
            continue; // a value set since the upgrade wins
        current.setValue(key, legacy.value(key));
        ++result.moved;
    }
    current.sync();
    if (current.status() != QSettings::NoError) {
        result.error =
            core::Tr::tr("cannot write %1; the old settings stay in %2").arg(current.fileName(), result.from);
        return result;
    }
    QFile::remove(result.from);
    QDir().rmdir(QFileInfo(result.from).absolutePath()); // only when nothing else is left in it
    return result;
}

} // namespace torchdeck
