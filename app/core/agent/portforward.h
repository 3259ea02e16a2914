#pragma once

#include <QCborMap>
#include <QString>
#include <optional>

namespace torchdeck {

// A local port forwarded to a port on a run's first node (`torchdeck forward`, the window's "Open port..."):
// the agent listens on 127.0.0.1:localPort and relays each connection over the cluster's one SSH connection,
// until the forward is stopped, whichever front asked for it.
struct PortForward {
    QString cluster;
    QString runId;
    QString node;    // the scheduler's name for the node
    QString address; // where the login node reaches it: the scheduler's address for the node (Slurm's NodeAddr)
    int remotePort = 0;
    int localPort = 0;
    int connections = 0; // open now
    qint64 served = 0;   // connections relayed since it started
    QString lastError;   // why the last connection that failed did, in words

    QString url() const { return QStringLiteral("http://localhost:%1/").arg(localPort); }
};

QCborMap portForwardToCbor(const PortForward &forward);
std::optional<PortForward> portForwardFromCbor(const QCborMap &map, QString *error);

// A TCP port as a person writes it: 1 to 65535, digits only.
std::optional<int> parsePort(const QString &text);

} // namespace torchdeck
