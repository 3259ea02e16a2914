#include "session/internal/portforwarder.h"

#include "session/internal/sessioninternals.h"

#include <QLoggingCategory>
#include <QTcpSocket>

namespace torchdeck {

namespace {
Q_LOGGING_CATEGORY(lcForward, "torchdeck.forward")
} // namespace

PortForwarder::PortForwarder(ClusterSession *session, PortForward forward)
    : QObject(session)
    , m_session(session)
    , m_forward(std::move(forward))
{
    connect(&m_server, &QTcpServer::newConnection, this, &PortForwarder::accept);
}

PortForwarder::~PortForwarder()
{
    m_server.close();
}

QString PortForwarder::listen(int port)
{
    if (!m_server.listen(QHostAddress::LocalHost, quint16(port)))
        return tr("cannot listen on localhost:%1: %2").arg(port).arg(m_server.errorString());
    m_forward.localPort = m_server.serverPort();
    return {};
}

void PortForwarder::probe(const std::function<void(const QString &)> &done)
{
    if (!m_session)
        return done(tr("the session is gone"));
    auto answered = std::make_shared<bool>(false);
    m_session->whenConnected(
        this,
        [this, done, answered] {
            remote::RemoteTunnel *tunnel =
                SessionInternals::connection(*m_session).tunnel(m_forward.address, m_forward.remotePort);
            connect(tunnel, &remote::RemoteTunnel::opened, this, [tunnel, done, answered] {
                *answered = true;
                tunnel->stop();
                done({});
            });
            connect(tunnel, &remote::RemoteTunnel::closed, this, [done, answered](const QString &error) {
                if (!std::exchange(*answered, true))
                    done(error);
            });
        },
        [done](const QString &error) { done(error); });
}

void PortForwarder::accept()
{
    while (QTcpSocket *socket = m_server.nextPendingConnection())
        relay(socket);
}

void PortForwarder::relay(QTcpSocket *socket)
{
    ++m_forward.connections;
    ++m_forward.served;
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    connect(socket, &QObject::destroyed, this, [this] { --m_forward.connections; });
    if (!m_session) {
        socket->abort();
        socket->deleteLater();
        return;
    }
    constexpr int retriesAfterALoss = 1;
    openTunnel(socket, retriesAfterALoss);
}

void PortForwarder::openTunnel(QTcpSocket *socket, int retries)
{
    // While the session reconnects, the bytes wait in the socket.
    m_session->whenConnected(
        socket,
        [this, socket, retries] {
            if (!m_session)
                return socket->abort();
            remote::RemoteTunnel *tunnel =
                SessionInternals::connection(*m_session).tunnel(m_forward.address, m_forward.remotePort);
            const QPointer<remote::RemoteTunnel> alive(tunnel);
            auto opened = std::make_shared<bool>(false);
            // Bytes stay in the socket until the tunnel is open: one that fails to open may be asked for again.
            const auto send = [socket, alive, opened] {
                if (alive && *opened && socket->bytesAvailable() > 0)
                    alive->write(socket->readAll());
            };
            connect(tunnel, &remote::RemoteTunnel::opened, socket, [opened, send] {
                *opened = true;
                send();
            });
            connect(socket, &QTcpSocket::readyRead, tunnel, send);
            connect(tunnel, &remote::RemoteTunnel::data, socket,
                    [socket](const QByteArray &bytes) { socket->write(bytes); });
            connect(tunnel, &remote::RemoteTunnel::closed, socket,
                    [this, socket, alive, opened, retries](const QString &error) {
                        QObject::disconnect(socket, nullptr, alive, nullptr); // what comes now is for no tunnel
                        // Opened on a session that had just died: nothing was sent, so ask the next session.
                        if (!*opened && retries > 0 && m_session && !m_session->isConnected())
                            return openTunnel(socket, retries - 1);
                        if (!error.isEmpty()) {
                            qCInfo(lcForward).noquote()
                                << "a connection to localhost:" << m_forward.localPort << "ended:" << error;
                            m_forward.lastError = error;
                        }
                        socket->disconnectFromHost(); // after what it still has to write
                    });
            connect(socket, &QObject::destroyed, tunnel, [alive] {
                if (alive)
                    alive->stop();
            });
        },
        [this, socket](const QString &error) {
            m_forward.lastError = error;
            socket->abort();
            socket->deleteLater();
        });
}

} // namespace torchdeck
