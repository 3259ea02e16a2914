#include "core/agent/agentautostart.h"

#include "core/appidentity.h"
#include "core/coretr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace torchdeck {

namespace {
const QString unitName = QStringLiteral("torchdeck-agent.service");

QString configHome()
{
    const QString xdg = qEnvironmentVariable("XDG_CONFIG_HOME");
    return xdg.isEmpty() ? QDir::homePath() + QStringLiteral("/.config") : xdg;
}

QString unitPath()
{
    return configHome() + QStringLiteral("/systemd/user/") + unitName;
}

QString wantsLink()
{
    return configHome() + QStringLiteral("/systemd/user/default.target.wants/") + unitName;
}

QString entryPath()
{
    return configHome() + QStringLiteral("/autostart/") + desktopFileName() + QStringLiteral("-agent.desktop");
}

// The default store needs no variable; another one is named, so the agent started at login is this one's.
bool isDefaultDataDirectory(const QString &dataDirectory)
{
    return dataDirectory.isEmpty() ||
           QDir(dataDirectory) == QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                                       QStringLiteral("/torchdeck"));
}

// systemd and desktop entries split Exec on spaces and read backslashes and quotes: quote the program.
QString execQuoted(const QString &path)
{
    QString escaped = path;
    escaped.replace(u'\\', QStringLiteral("\\\\")).replace(u'"', QStringLiteral("\\\""));
    return u'"' + escaped + u'"';
}

QString writeFile(const QString &path, const QString &text)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return core::Tr::tr("cannot make the folder of %1").arg(path);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit())
        return core::Tr::tr("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

QString removeFile(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())
        return {};
    return QFile::remove(path) ? QString() : core::Tr::tr("cannot remove %1").arg(path);
}
} // namespace

bool hasUserManager()
{
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    return !runtime.isEmpty() && QFileInfo::exists(runtime + QStringLiteral("/systemd/private"));
}

AutostartFile autostartFile(AutostartKind kind, const QString &executable, const QString &dataDirectory)
{
    AutostartFile file;
    file.kind = kind;
    const bool ownStore = !isDefaultDataDirectory(dataDirectory);
    if (kind == AutostartKind::SystemdUser) {
        file.path = unitPath();
        QStringList lines{QStringLiteral("[Unit]"),
                          QStringLiteral("Description=torchdeck agent: watches your training runs and restarts them"),
                          QStringLiteral("Documentation=man:torchdeck(1)"),
                          QString(),
                          QStringLiteral("[Service]"),
                          QStringLiteral("Type=simple"),
                          QStringLiteral("ExecStart=%1 agent").arg(execQuoted(executable))};
        if (ownStore)
            lines.append(QStringLiteral("Environment=%1")
                             .arg(execQuoted(QStringLiteral("TORCHDECK_DATA_DIR=") + dataDirectory)));
        lines << QStringLiteral("Restart=on-failure") << QString() << QStringLiteral("[Install]")
              << QStringLiteral("WantedBy=default.target");
        file.text = lines.join(u'\n') + u'\n';
        return file;
    }
    file.path = entryPath();
    QString exec = execQuoted(executable) + QStringLiteral(" agent");
    if (ownStore)
        exec = QStringLiteral("env %1 %2").arg(execQuoted(QStringLiteral("TORCHDECK_DATA_DIR=") + dataDirectory), exec);
    const QStringList lines{QStringLiteral("[Desktop Entry]"),
                            QStringLiteral("Type=Application"),
                            QStringLiteral("Name=torchdeck agent"),
                            QStringLiteral("Comment=Watches your training runs and restarts them"),
                            QStringLiteral("Exec=%1").arg(exec),
                            QStringLiteral("Icon=%1").arg(desktopFileName()),
                            QStringLiteral("Terminal=false"),
                            QStringLiteral("NoDisplay=true"),
                            QStringLiteral("X-GNOME-Autostart-enabled=true")};
    file.text = lines.join(u'\n') + u'\n';
    return file;
}

QString setAutostart(bool enabled, const QString &executable, const QString &dataDirectory)
{
    if (!enabled) {
        for (const QString &path : {wantsLink(), unitPath(), entryPath()}) {
            if (QString error = removeFile(path); !error.isEmpty())
                return error;
        }
        return {};
    }
    const AutostartKind kind = hasUserManager() ? AutostartKind::SystemdUser : AutostartKind::XdgAutostart;
    const AutostartFile file = autostartFile(kind, executable, dataDirectory);
    if (QString error = writeFile(file.path, file.text); !error.isEmpty())
        return error;
    if (kind == AutostartKind::SystemdUser) {
        // What `systemctl --user enable` does, without needing the manager to answer.
        QDir().mkpath(QFileInfo(wantsLink()).absolutePath());
        if (!QFileInfo(wantsLink()).isSymLink() && !QFile::link(file.path, wantsLink()))
            return core::Tr::tr("cannot enable %1 (link %2)").arg(file.path, wantsLink());
    }
    return {};
}

QString installedAutostart()
{
    for (const QString &path : {unitPath(), entryPath()}) {
        if (QFileInfo::exists(path))
            return path;
    }
    return {};
}

} // namespace torchdeck
