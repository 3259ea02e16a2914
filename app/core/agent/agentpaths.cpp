#include "core/agent/agentpaths.h"

#include "core/appidentity.h"
#include "core/coretr.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <unistd.h>

namespace torchdeck {

namespace {
// sun_path holds 108 bytes on Linux, 104 on macOS, the terminating zero included.
constexpr qsizetype longestSocketPath = 100;

QString socketName(const QString &dataDirectory)
{
    const QByteArray hash =
        QCryptographicHash::hash(QDir(dataDirectory).absolutePath().toUtf8(), QCryptographicHash::Sha256);
    return QStringLiteral("agent-%1.sock").arg(QString::fromLatin1(hash.toHex().left(12)));
}
} // namespace

AgentPaths agentPaths()
{
    AgentPaths paths;
    paths.dataDirectory = dataDirectory();
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!runtime.isEmpty())
        paths.socketPath = runtime + QStringLiteral("/torchdeck/") + socketName(paths.dataDirectory);
    else
        paths.socketPath = paths.dataDirectory + QStringLiteral("/agent.sock");
    if (paths.socketPath.toLocal8Bit().size() > longestSocketPath)
        paths.socketPath =
            QStringLiteral("/tmp/torchdeck-%1/").arg(getuid()) + socketName(paths.dataDirectory); // a private folder
    paths.lockFile = paths.socketPath + QStringLiteral(".lock");
    paths.logFile = paths.dataDirectory + QStringLiteral("/agent.log");
    return paths;
}

namespace {
const QString idleExitKey = QStringLiteral("idle_exit_minutes");
constexpr int defaultIdleExitMinutes = 10;
constexpr int longestIdleExitMinutes = 7 * 24 * 60;

QString agentSettingsPath()
{
    return configDirectory() + QStringLiteral("/agent.conf");
}
} // namespace

int agentIdleExitMinutes()
{
    const QSettings settings(agentSettingsPath(), QSettings::IniFormat);
    return qBound(0, settings.value(idleExitKey, defaultIdleExitMinutes).toInt(), longestIdleExitMinutes);
}

void setAgentIdleExitMinutes(int minutes)
{
    QSettings settings(agentSettingsPath(), QSettings::IniFormat);
    settings.setValue(idleExitKey, qBound(0, minutes, longestIdleExitMinutes));
    settings.sync();
}

} // namespace torchdeck
