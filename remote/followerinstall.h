#pragma once

#include <QString>

namespace torchdeck::remote {

// Where the login-node follower (remote/follower/) lives on a cluster and how it gets there: its sources under
// <work>/follower/<hash of the sources>/, built with the site's C compiler the first time (cc, gcc or clang), or run
// with bash where none builds it. A new torchdeck with other sources gets a directory of its own.
struct FollowerForm {
    QString command; // runs it, on an SSH channel; empty: it cannot run here
    QString form;    // "compiled" or "shell"
};

// The one command that installs it (a no-op when the binary is there) and prints its form.
QString followerInstallCommand(const QString &workDirectory);
// What that command printed.
FollowerForm followerFormFrom(const QString &workDirectory, const QByteArray &out);

// How often a follower says it is alive: 10 s, or TORCHDECK_FOLLOWER_HEARTBEAT_MS (tests). One silent for
// followerSilentAfterMs() is stopped (a SIGSTOP, a login node that froze it) and its files go on over SFTP.
int followerHeartbeatMs();
int followerSilentAfterMs();

} // namespace torchdeck::remote
