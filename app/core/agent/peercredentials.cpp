#include "core/agent/peercredentials.h"

#include <sys/socket.h>
#include <sys/types.h>

namespace torchdeck {

PeerCredentials peerCredentials(qintptr socketDescriptor)
{
    struct ucred credentials {};
    socklen_t length = sizeof credentials;
    if (socketDescriptor < 0 || getsockopt(int(socketDescriptor), SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0)
        return {};
    return {credentials.pid, credentials.uid};
}

} // namespace torchdeck
