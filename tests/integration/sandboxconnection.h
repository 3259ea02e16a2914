#pragma once

// What the integration tests share: whether the ctest fixture's sandbox runs, and how to reach it.
#include "remote/connectionstate.h"

#include <QFile>
#include <QString>

namespace torchdeck::testing {

inline bool sandboxRunning()
{
    const QString dir = qEnvironmentVariable("TORCHDECK_SANDBOX_DIR");
    return !dir.isEmpty() && QFile::exists(dir + QStringLiteral("/run/pids"));
}

inline remote::ConnectionSettings sandboxConnectionSettings()
{
    remote::ConnectionSettings settings;
    settings.host = QStringLiteral("torchdeck-sandbox");
    settings.sshConfigFile = qEnvironmentVariable("TORCHDECK_SSH_CONFIG");
    return settings;
}

} // namespace torchdeck::testing
