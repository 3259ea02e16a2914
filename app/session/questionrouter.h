#pragma once

#include "core/connectionquestions.h"

#include <QHash>
#include <QList>
#include <QPointer>
#include <QString>

namespace torchdeck {

class AgentPeer;
class ClusterSession;

// Where a connection's question (host key, password, passphrase, one-time code) goes: to the front whose
// request needs the connection, else to another front that can ask a person. With none attached it is
// refused at once, the connection fails, and the cluster "needs you": the next front that can ask reopens it
// and gets the question. Every question is answered exactly once, also when its front goes away.
class QuestionRouter {
public:
    // The front that asked for something on this cluster last: its questions go to it first.
    void noteAsker(const QString &cluster, AgentPeer *peer);
    void hostKeyNeeded(ClusterSession *session, const HostKeyCheck &key, const QList<AgentPeer *> &peers);
    void credentialNeeded(ClusterSession *session, const CredentialPrompt &prompt, const QList<AgentPeer *> &peers);
    // An answer from a front; false when it held no question of this cluster (a late or stray answer).
    bool answerHostKey(AgentPeer *peer, ClusterSession *session, bool trust);
    bool answerCredential(AgentPeer *peer, ClusterSession *session, std::optional<QString> answer);
    // The front left: its questions go to another front, or are refused.
    void peerGone(AgentPeer *peer, const QList<AgentPeer *> &peers,
                  const std::function<ClusterSession *(const QString &)> &sessionOf);

    bool needsYou(const QString &cluster) const { return m_needsYou.contains(cluster); }
    QString whatIsNeeded(const QString &cluster) const { return m_needsYou.value(cluster); }
    QStringList clustersNeedingYou() const { return m_needsYou.keys(); }
    void clearNeedsYou(const QString &cluster) { m_needsYou.remove(cluster); }

private:
    struct Pending {
        bool hostKey = false;
        HostKeyCheck key;
        CredentialPrompt prompt;
        QPointer<AgentPeer> peer;
    };
    AgentPeer *chooseFront(const QString &cluster, const QList<AgentPeer *> &peers) const;
    bool deliver(ClusterSession *session, Pending &pending, const QList<AgentPeer *> &peers);

    QHash<QString, QPointer<AgentPeer>> m_askers;
    QHash<QString, Pending> m_pending;  // by cluster: the question a front holds now
    QHash<QString, QString> m_needsYou; // by cluster: what was asked with no front to ask
};

} // namespace torchdeck
