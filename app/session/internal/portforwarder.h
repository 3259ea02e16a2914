#pragma once

#include "core/agent/portforward.h"

#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <functional>

class QTcpSocket;

namespace torchdeck {

class ClusterSession;

// One forward of the agent: a listener on 127.0.0.1 whose every connection becomes a tunnel over the session's
// one SSH connection to the node's address and port. The listener outlives reconnects; a stream does not (TCP
// cannot be resumed), and a connection that arrives while the session reconnects waits for it.
class PortForwarder : public QObject {
    Q_OBJECT
public:
    PortForwarder(ClusterSession *session, PortForward forward);
    ~PortForwarder() override;

    // Listens on 127.0.0.1:port (0: a free port); the error in words, empty on success.
    [[nodiscard]] QString listen(int port);
    const PortForward &forward() const { return m_forward; }
    // Opens and closes one tunnel: done(error), empty when the node's port accepted it.
    void probe(const std::function<void(const QString &error)> &done);

private:
    void accept();
    void relay(QTcpSocket *socket);
    // A tunnel for the socket once the session is connected; one whose opening the connection's loss
    // interrupted is asked for again after the reconnect (`retries` times).
    void openTunnel(QTcpSocket *socket, int retries);

    QPointer<ClusterSession> m_session;
    PortForward m_forward;
    QTcpServer m_server;
};

} // namespace torchdeck
