#pragma once

#include "core/agent/agentprotocol.h"

namespace torchdeck {

class Agent;
class AgentPeer;
class ClusterSession;
class CborFields;

// One request of a front, answered by the agent: each operation's arguments checked and handed to the agent
// or to the cluster's session (docs/agent.md lists them). A bad argument is an error reply, never a crash.
class AgentRequests {
public:
    AgentRequests(Agent *agent, AgentPeer *peer)
        : m_agent(agent)
        , m_peer(peer)
    {
    }
    void handle(const AgentMessage &request);

private:
    void reply(const QCborValue &result);
    void error(const QString &message);
    // The same, for an operation that answered at once: true (handled).
    bool replied(const QCborValue &result);
    bool failed(const QString &message);
    bool agentOperation(const QString &op, CborFields &args);
    bool clusterOperation(const QString &op, CborFields &args, ClusterSession *session);
    void hello(CborFields &args);

    Agent *m_agent;
    AgentPeer *m_peer;
    qint64 m_id = 0;
};

} // namespace torchdeck
