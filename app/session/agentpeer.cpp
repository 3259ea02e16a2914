#include "session/agentpeer.h"

#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"

#include <QLocalSocket>
#include <QTimer>

namespace torchdeck {

AgentPeer::AgentPeer(QLocalSocket *socket, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
{
    socket->setParent(this);
    // A front says hello as it connects: one that does not (a stray connection, a flood) holds no descriptor long.
    QTimer::singleShot(kAgentHelloDeadlineMs, this, [this] {
        if (!greeted)
            close(tr("no hello within %1 s").arg(kAgentHelloDeadlineMs / 1000));
    });
    connect(socket, &QLocalSocket::readyRead, this, &AgentPeer::readAll);
    connect(socket, &QLocalSocket::disconnected, this, [this] {
        if (!std::exchange(m_closed, true))
            emit gone(this);
    });
}

void AgentPeer::send(const AgentMessage &message)
{
    if (!m_closed)
        m_socket->write(encodeAgentFrame(message));
}

void AgentPeer::close(const QString &why)
{
    if (m_closed)
        return;
    if (!why.isEmpty())
        send(agent::eventMessage(agent::ClosingEvent{why}));
    m_closed = true;
    m_socket->flush(); // the last replies go out before the socket, deleted soon, would drop them
    m_socket->disconnectFromServer();
    emit gone(this);
}

void AgentPeer::readAll()
{
    m_reader.append(m_socket->readAll());
    while (!m_closed) {
        const std::optional<QByteArray> payload = m_reader.next();
        if (!payload) {
            if (m_reader.failed())
                close(m_reader.error());
            return;
        }
        QString error;
        const std::optional<AgentMessage> decoded = decodeAgentMessage(*payload, &error);
        if (!decoded)
            return close(tr("an unreadable message: %1").arg(error));
        if (decoded->version != kAgentProtocolVersion && decoded->op == QString::fromUtf16(agent::Handover::name)) {
            emit message(this, *decoded); // a front of another version asks this agent to go: it does
            continue;
        }
        if (decoded->version != kAgentProtocolVersion) {
            // Said in the other version's own terms as far as we know them: the frame and the error reply.
            send(agentErrorReply(
                decoded->id,
                tr("this agent speaks protocol %1, not %2").arg(kAgentProtocolVersion).arg(decoded->version)));
            continue;
        }
        if (decoded->kind != AgentMessageKind::Request)
            return close(tr("a front sends requests only"));
        emit message(this, *decoded);
    }
}

} // namespace torchdeck
