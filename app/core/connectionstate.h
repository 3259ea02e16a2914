#pragma once

#include "core/coretr.h"

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

} // namespace torchdeck

Q_DECLARE_METATYPE(torchdeck::ConnectionState)
