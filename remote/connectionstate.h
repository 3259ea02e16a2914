#pragma once

#include <QMetaType>
#include <QString>

namespace torchdeck::remote {

enum class ConnectionState { Disconnected, Connecting, Connected, Reconnecting, Failed };

inline QString connectionStateName(ConnectionState state)
{
    switch (state) {
    case ConnectionState::Disconnected:
        return QStringLiteral("disconnected");
    case ConnectionState::Connecting:
        return QStringLiteral("connecting");
    case ConnectionState::Connected:
        return QStringLiteral("connected");
    case ConnectionState::Reconnecting:
        return QStringLiteral("reconnecting");
    case ConnectionState::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

struct ConnectionSettings {
    QString host;          // an alias of the ssh config, or a host name
    QString sshConfigFile; // empty: ~/.ssh/config
    int reconnectAttempts = 8;
    int reconnectFirstDelayMs = 250; // doubles per attempt, up to reconnectMaxDelayMs
    int reconnectMaxDelayMs = 30000;
    int tailPollMs = 50;      // while a followed file is growing
    int tailIdlePollMs = 500; // after it has been quiet for a while, or does not exist yet
    // Commands running at once; more wait for a channel. sshd refuses channels past its MaxSessions (10 by
    // default) and SFTP holds one: a front that asked for more at once saw its commands fail.
    int maxRunningCommands = 6;
};

} // namespace torchdeck::remote

Q_DECLARE_METATYPE(torchdeck::remote::ConnectionState)
