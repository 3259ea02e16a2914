#pragma once

#include "core/agent/agentprotocol.h"

#include <QHash>
#include <QObject>
#include <QPointer>

class QLocalSocket;

namespace torchdeck {

class SessionOperation;

// One front attached to the agent: its socket, what it said of itself, its requests in flight and how often
// it wants its clusters polled. Garbage on the socket gets an error message and the socket closed.
class AgentPeer : public QObject {
    Q_OBJECT
public:
    AgentPeer(QLocalSocket *socket, QObject *parent = nullptr);

    void send(const AgentMessage &message);
    void close(const QString &why);

    // From its hello.
    QString front;
    qint64 pid = 0;
    bool interactive = false;
    bool greeted = false;
    int pollMs = 0;                      // 0: no wish
    QHash<QString, QStringList> looking; // the runs it shows, by cluster: their resources are sampled

    // Requests running for this front, by its id: a stop request ends one, and nothing reaches a front that left.
    QHash<qint64, QPointer<SessionOperation>> operations;

signals:
    void message(torchdeck::AgentPeer *peer, const torchdeck::AgentMessage &message);
    void gone(torchdeck::AgentPeer *peer);

private:
    void readAll();

    QLocalSocket *m_socket;
    AgentFrameReader m_reader;
    bool m_closed = false;
};

} // namespace torchdeck
