#pragma once

#include <QtGlobal>

namespace torchdeck {

// The process at the other end of a connected local socket, as the kernel says (SO_PEERCRED): the agent checks
// a front's uid; a front names the agent that does not answer by its pid. -1 each when they cannot be read.
struct PeerCredentials {
    qint64 pid = -1;
    qint64 uid = -1;
};
PeerCredentials peerCredentials(qintptr socketDescriptor);

} // namespace torchdeck
