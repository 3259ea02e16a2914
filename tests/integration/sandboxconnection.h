#pragma once

// What the integration tests share: whether the ctest fixture's sandbox runs, and how to reach it.
#include "remote/connection.h"
#include "remote/connectionstate.h"
#include "remotewait.h"

#include <QFile>
#include <QString>
#include <memory>

namespace torchdeck::testing {

using testing::runAndWait;
using testing::waitConnected;

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

// A connection to the sandbox, open and authenticated; null, with the reason in `error`, if it could not be.
inline std::unique_ptr<remote::Connection> openSandboxConnection(QString *error)
{
    auto connection = std::make_unique<remote::Connection>(sandboxConnectionSettings());
    connection->open();
    if (!waitConnected(*connection, 10000, error))
        return nullptr;
    return connection;
}

} // namespace torchdeck::testing
