#pragma once

#include "core/coretr.h"

#include <QDateTime>
#include <QMetaType>
#include <QString>

namespace torchdeck {

// A cluster connection's state, as the agent's sessions and every front show it.
enum class ConnectionState { Disconnected, Connecting, Connected, Reconnecting, Failed };

inline QString connectionStateName(ConnectionState state)
{
    switch (state) {
    case ConnectionState::Disconnected:
        return core::Tr::tr("disconnected");
    case ConnectionState::Connecting:
        return core::Tr::tr("connecting");
    case ConnectionState::Connected:
        return core::Tr::tr("connected");
    case ConnectionState::Reconnecting:
        return core::Tr::tr("reconnecting");
    case ConnectionState::Failed:
        return core::Tr::tr("failed");
    }
    return {};
}

// "next poll at 14:03:20" (local time), what the fronts show of the agent's next scheduler query; empty: none planned.
inline QString nextPollText(const QDateTime &at)
{
    return at.isValid() ? core::Tr::tr("next poll at %1").arg(at.toLocalTime().toString(QStringLiteral("HH:mm:ss")))
                        : QString();
}

// What a connection asked of the login node since it was made: the measure of a tool's load on it (agent
// status, scripts/bench-remote).
struct ConnectionLoad {
    qint64 commands = 0;         // remote commands (each a shell the server starts)
    qint64 schedulerQueries = 0; // of them, squeue/sacct/qstat polls
    qint64 sftpRequests = 0;     // stat, open and read requests on the SFTP channel
    qint64 bytesIn = 0;          // command output and file bytes received
    QString following;           // what reads the followed files: the login-node follower (which form), or SFTP
    QString followerProblem;     // why the follower was given up, if it was
};

} // namespace torchdeck

Q_DECLARE_METATYPE(torchdeck::ConnectionState)
