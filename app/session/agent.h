#pragma once

#include "core/agent/agentcodec.h"
#include "core/agent/agentpaths.h"
#include "core/profiles/profilestore.h"
#include "core/runs/runnotice.h"
#include "core/store/runstore.h"

#include <QDateTime>
#include <QObject>
#include <QTimer>
#include <memory>

class QLockFile;

namespace torchdeck {

class AgentListener;
class AgentPeer;
class ClusterSession;
class ClusterSessions;
class Notifier;
class RunMover;
class QuestionRouter;
class SessionOperation;
struct AgentMessage;

// `torchdeck agent`: one process per user and run store that holds every cluster session (connection,
// tracker, polling, restarts, submissions) and serves the fronts over a local socket (docs/agent.md). It
// keeps running while a run is unfinished or a front is attached, and exits after the idle time when
// neither holds. The fronts are its clients (session/agentclient.h).
class Agent : public QObject {
    Q_OBJECT
public:
    explicit Agent(QObject *parent = nullptr);
    ~Agent() override;

    // Opens the store, takes the lock and listens; an error says why not (another agent holds the lock: the
    // empty error and false, so a second start ends quietly).
    [[nodiscard]] bool start(QString *error);
    // Stops after the submissions in flight (new requests are refused meanwhile), then emits stopped().
    void stop(const QString &why);

    AgentPaths paths() const { return m_paths; }
    ClusterSessions *sessions() const { return m_sessions.get(); }
    RunStore *store() { return &m_store; }
    AgentStatus status() const;
    QString version() const { return m_version; }

signals:
    void stopped();

private:
    friend class AgentRequests;
    void acceptPeer(qintptr descriptor);
    // The agent is bounded: fronts that have not said hello are few and short-lived (agentpeer.h).
    int ungreetedPeers() const;
    // Its socket and data folder are still there; else it stops, so that a new agent can start.
    bool stillHome();
    // Whether a request may make a session for this cluster: one the user configured (their ssh config, a saved
    // profile) or that has runs in the store. Else the error to answer.
    QString unknownClusterProblem(const QString &cluster) const;
    void peerMessage(AgentPeer *peer, const AgentMessage &message);
    void peerGone(AgentPeer *peer);
    void sessionAdded(ClusterSession *session);
    template <class Event> void broadcast(const Event &event); // to every front that said hello
    // A run's news for its user: the desktop, the profile's notify_command, and every front ("notice").
    void tell(const RunNotice &notice, ClusterSession *session);
    void applyPollIntervals();
    void applyLooking(); // each session samples the runs some front shows
    void reloadProfilesIfChanged();
    void checkIdle();
    void retryTracking();
    void finishStopIfQuiet();
    ClusterSession *sessionFor(const QString &cluster);
    void track(AgentPeer *peer, qint64 id, SessionOperation *operation, bool submission);

    AgentPaths m_paths;
    QDateTime m_started;
    QString m_version; // of the executable when the agent started: it may be replaced while the agent runs
    RunStore m_store;
    ProfileStore m_profiles;
    QDateTime m_profilesRead;
    std::unique_ptr<ClusterSessions> m_sessions;
    std::unique_ptr<QuestionRouter> m_questions;
    Notifier *m_notifier;
    RunMover *m_mover; // --move-after: waiting restarts moved to a cluster that starts them sooner
    std::unique_ptr<QLockFile> m_lock;
    AgentListener *m_listener = nullptr;
    QList<AgentPeer *> m_peers;
    int m_submissionsInFlight = 0;
    bool m_stopping = false;
    int m_idleExitMinutes = 10;
    QDateTime m_idleSince;
    QTimer m_idleTimer;
    QTimer m_retryTimer;
};

} // namespace torchdeck
