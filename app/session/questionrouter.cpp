#include "session/questionrouter.h"

#include "core/agent/agentevents.h"
#include "session/agentpeer.h"
#include "session/clustersession.h"

namespace torchdeck {

void QuestionRouter::noteAsker(const QString &cluster, AgentPeer *peer)
{
    if (peer->interactive)
        m_askers.insert(cluster, peer);
}

AgentPeer *QuestionRouter::chooseFront(const QString &cluster, const QList<AgentPeer *> &peers) const
{
    AgentPeer *asker = m_askers.value(cluster);
    if (asker && peers.contains(asker) && asker->interactive)
        return asker;
    // The front that came last is the one a person most likely looks at.
    for (auto it = peers.crbegin(); it != peers.crend(); ++it) {
        if ((*it)->interactive && (*it)->greeted)
            return *it;
    }
    return nullptr;
}

bool QuestionRouter::deliver(ClusterSession *session, Pending &pending, const QList<AgentPeer *> &peers)
{
    AgentPeer *front = chooseFront(session->name(), peers);
    pending.peer = front;
    if (!front) {
        const QString what = pending.hostKey ? QStringLiteral("host key") : pending.prompt.text.trimmed();
        m_needsYou.insert(session->name(), what.isEmpty() ? QStringLiteral("credential") : what);
        return false;
    }
    if (pending.hostKey)
        front->send(agent::eventMessage(agent::HostKeyEvent{session->name(), pending.key}));
    else
        front->send(agent::eventMessage(agent::CredentialEvent{session->name(), pending.prompt}));
    return true;
}

void QuestionRouter::hostKeyNeeded(ClusterSession *session, const HostKeyCheck &key, const QList<AgentPeer *> &peers)
{
    Pending pending;
    pending.hostKey = true;
    pending.key = key;
    if (!deliver(session, pending, peers))
        return session->answerHostKey(false);
    m_needsYou.remove(session->name());
    m_pending.insert(session->name(), pending);
}

void QuestionRouter::credentialNeeded(ClusterSession *session, const CredentialPrompt &prompt,
                                      const QList<AgentPeer *> &peers)
{
    Pending pending;
    pending.prompt = prompt;
    if (!deliver(session, pending, peers))
        return session->answerCredential(std::nullopt);
    m_needsYou.remove(session->name());
    m_pending.insert(session->name(), pending);
}

bool QuestionRouter::answerHostKey(AgentPeer *peer, ClusterSession *session, bool trust)
{
    const auto it = m_pending.constFind(session->name());
    if (it == m_pending.cend() || !it->hostKey || it->peer != peer)
        return false;
    m_pending.erase(it);
    session->answerHostKey(trust);
    return true;
}

bool QuestionRouter::answerCredential(AgentPeer *peer, ClusterSession *session, std::optional<QString> answer)
{
    const auto it = m_pending.constFind(session->name());
    if (it == m_pending.cend() || it->hostKey || it->peer != peer)
        return false;
    m_pending.erase(it);
    session->answerCredential(std::move(answer));
    return true;
}

void QuestionRouter::peerGone(AgentPeer *peer, const QList<AgentPeer *> &peers,
                              const std::function<ClusterSession *(const QString &)> &sessionOf)
{
    const QStringList clusters = m_pending.keys();
    for (const QString &cluster : clusters) {
        Pending &pending = m_pending[cluster];
        if (pending.peer && pending.peer != peer)
            continue;
        ClusterSession *session = sessionOf(cluster);
        if (!session) {
            m_pending.remove(cluster);
            continue;
        }
        QList<AgentPeer *> others = peers;
        others.removeAll(peer);
        if (deliver(session, pending, others))
            continue;
        const bool hostKey = pending.hostKey;
        m_pending.remove(cluster);
        if (hostKey)
            session->answerHostKey(false);
        else
            session->answerCredential(std::nullopt);
    }
}

} // namespace torchdeck
