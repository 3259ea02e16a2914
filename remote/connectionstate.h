#pragma once

#include "core/connectionstate.h"

#include <QMetaType>
#include <QString>

namespace torchdeck::remote {

// How often a followed file is looked at: while it grows, and once it has been quiet for a while (or does not
// exist yet). Each look is one SFTP stat when nothing changed. The login-node follower's looks are local (an open
// and an fstat, microseconds): a tail may ask for those more often (0: the same pace).
struct TailPace {
    int growingMs = 50;
    int quietMs = 500;
    int followedGrowingMs = 0;
    int followedQuietMs = 0;
    int lookMs(bool followed) const { return followed && followedGrowingMs > 0 ? followedGrowingMs : growingMs; }
    int quietLookMs(bool followed) const { return followed && followedQuietMs > 0 ? followedQuietMs : quietMs; }
};

struct ConnectionSettings {
    QString host;          // an alias of the ssh config, or a host name
    QString sshConfigFile; // empty: ~/.ssh/config
    int reconnectAttempts = 8;
    int reconnectFirstDelayMs = 250; // doubles per attempt, up to reconnectMaxDelayMs
    int reconnectMaxDelayMs = 30000;
    TailPace tailPace{50, 500, 5, 250}; // a tail's unless it asks for its own: `logs -f`, someone waits
    // Commands running at once; more wait for a channel. sshd refuses channels past its MaxSessions (10 by
    // default) and SFTP holds one: a front that asked for more at once saw its commands fail.
    int maxRunningCommands = 6;
    // A blocking step of libssh (connecting, opening a channel, an SFTP call) that gets no answer for this
    // long fails; the link is then taken for dead.
    int answerTimeoutMs = 15000;
    // When nothing came from the server for this long, a keepalive round trip: no answer within
    // answerTimeoutMs and the connection is lost (Reconnecting). A suspended laptop or a stopped sshd is
    // noticed within about keepaliveMs + answerTimeoutMs.
    int keepaliveMs = 10000;
};

// How long a command may run before it is stopped and fails (it may have done part of its work):
// Connection::run's default; long work (a build) asks for more.
constexpr int kDefaultCommandDeadlineMs = 5 * 60 * 1000;

} // namespace torchdeck::remote
