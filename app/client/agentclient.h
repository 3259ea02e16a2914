#pragma once

#include "core/agent/agentevents.h"
#include "core/agent/agentfields.h"
#include "core/agent/agentprotocol.h"
#include "core/clustercheckitem.h"
#include "core/connectionquestions.h"
#include "core/connectionstate.h"
#include "core/jobs/resumefrom.h"
#include "core/runs/launchrequest.h"
#include "core/runs/sweepsubmission.h"
#include "core/store/seriescache.h"

#include <QCborMap>
#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QLocalSocket>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <memory>
#include <optional>

namespace torchdeck {

class AgentFrameReader;
class ProfileStore;
class RunStore;
class SessionOperation;
struct AgentMessage;

// A front's line to the agent (docs/agent.md): every remote operation goes through it as a request of the
// protocol's table (core/agent/agentops.h; its reply read with replyOf<Op> or onReply<Op>), and the agent's news
// (connection states, runs and metrics as they change, the connection's questions) arrive as its signals. The
// window and every terminal command hold one. Attaching starts the agent when none runs (the same binary,
// `torchdeck agent`), and an agent of another version is asked to hand over first; one that does not answer its
// hello within kAgentAnswerDeadlineMs is named (detached). Runs, jobs and metrics are read from the run store (read
// only: the agent alone writes it); the series of each run are cached here and kept current by the agent's events,
// so a front redraws without reading the store again.
class AgentClient : public QObject {
    Q_OBJECT
public:
    struct Options {
        QString front = QStringLiteral("term"); // what `torchdeck agent status` calls it
        bool interactive = false;               // it can ask a person (the connection's questions come here)
        bool keepAttached = false;              // attach again (starting a new agent) when the agent goes away
        bool startAgent = true;                 // false: only an agent that runs already (agent status, stop)
        int pollMs = 3000; // how often its clusters are to be polled while it is attached (0: no wish)
    };
    AgentClient(Options options, RunStore *store, QObject *parent = nullptr);
    ~AgentClient() override;

    // The program whose `agent` subcommand is the agent: the fronts' own binary, set once by main(). Empty
    // (tests that run an agent of their own): the client never starts one.
    static void setAgentProgram(const QString &program);
    static QString agentProgram();
    // The version an agent of this front is to have: the one of agentProgram() (docs/agent.md).
    static QString expectedAgentVersion();

    // Attaches (asynchronously) unless attached or attaching; requests made before wait for it.
    void attach();
    bool isAttached() const { return m_attached; }
    // Detaches; what is in flight fails. No agent is stopped.
    void detach();
    QString agentVersion() const { return m_agentVersion; }
    qint64 agentPid() const { return m_agentPid; }
    // The agent's process took the connection but did not answer (stopped, hung): not to be taken for none.
    bool agentSilent() const { return m_agentSilent; }

    SessionOperation *open(const QString &cluster);
    // A pass over these runs (all of the cluster's unfinished ones when empty), unless the agent's last one,
    // at most maxAgeMs old, covered them: {"problem"}.
    SessionOperation *refresh(const QString &cluster, const QStringList &runIds, int maxAgeMs);
    SessionOperation *submit(const LaunchRequest &request, int chain = 1);
    // When the cluster would start a job of this script (agent::EstimateStart's reply); nothing is submitted.
    SessionOperation *estimateStart(const QString &cluster, const QString &script);
    // A sweep, sent and joined by the agent (ClusterSession::submitSweep); the reply's "jobs" has each run's.
    SessionOperation *submitSweep(const SweepRecord &sweep, const QList<SweepPointRequest> &points, bool asArray,
                                  int maxRunning);
    SessionOperation *resume(const QString &cluster, const QString &runId, const ResumeFrom &from,
                             const QString &epochs);
    // The run's next attempt on `cluster`, another than its own: its checkpoint copied there first (agent::ContinueOn).
    SessionOperation *continueOn(const QString &cluster, const QString &runId, const ResumeFrom &from,
                                 const QString &epochs);
    // The whole sweep: its unfinished runs resumed, or the sweep deleted (agent::ResumeSweep, agent::DeleteSweep);
    // the agent chooses the runs.
    SessionOperation *resumeSweep(const QString &cluster, const QString &sweepId);
    SessionOperation *deleteSweep(const QString &cluster, const QString &sweepId, bool refreshFirst = true);
    SessionOperation *cancel(const QString &cluster, const QStringList &runIds);
    SessionOperation *requeue(const QString &cluster, const QString &runId);
    SessionOperation *setAutoRestart(const QString &cluster, const QString &runId, bool enabled);
    SessionOperation *presentCheckpoints(const QString &cluster, const QString &runId);
    SessionOperation *deleteCheckpoints(const QString &cluster, const QString &runId, const QStringList &names);
    SessionOperation *annotateRun(const QString &cluster, const QString &runId, const std::optional<QString> &name,
                                  const std::optional<QString> &note, const QStringList &addTags = {},
                                  const QStringList &removeTags = {});
    SessionOperation *jobCommand(const QString &cluster, const QString &runId, const QString &node,
                                 const QString &command);
    // Keys and window sizes go to the returned operation's input().
    SessionOperation *jobShell(const QString &cluster, const QString &runId, const QString &node, int cols, int rows);
    SessionOperation *runFiles(const QString &cluster, const QString &runId, const QString &path);
    SessionOperation *pull(const QString &cluster, const QString &runId, const QStringList &files,
                           const QString &checkpoint, const QString &to);
    SessionOperation *deleteRuns(const QString &cluster, const QStringList &runIds, bool remote, bool dryRun);
    SessionOperation *readFile(const QString &cluster, const QString &path, int lastLines = -1);
    // From offset, or (lastBytes > 0) from that many bytes before the file's end: "data" events {offset, bytes},
    // "reset" {reason} when the file was truncated or replaced (it is read again from its start).
    SessionOperation *followFile(const QString &cluster, const QString &path, qint64 offset = 0, qint64 lastBytes = 0);
    SessionOperation *check(const QString &cluster, const ClusterCheckSettings &settings);
    SessionOperation *codeSnapshots(const QString &cluster);
    SessionOperation *pruneCodeSnapshots(const QString &cluster);
    SessionOperation *workDirectoryOf(const QString &cluster);
    // Forwards localhost:localPort (0: a free one) to remotePort on the run's node until stopped, however long
    // this front lives: {"forward": PortForward}, or why not.
    SessionOperation *startForward(const QString &cluster, const QString &runId, int remotePort, int localPort);
    // The agent's forwards on every cluster: {"forwards": [PortForward]}.
    SessionOperation *forwards();
    // Stops the forwards of this local port (0: any) and run (empty: any): {"forwards": [those stopped]}.
    SessionOperation *stopForwards(int localPort, const QString &runId);
    SessionOperation *status();
    SessionOperation *stopAgent();
    // How often this front wants its clusters polled from now on (0: no wish); the agent polls at the shortest
    // wish of its fronts, and every 10 s when none is attached.
    void setPollInterval(int ms);
    int pollInterval() const { return m_options.pollMs; }
    // The runs of a cluster this front shows now (none: an empty list): the agent samples their jobs'
    // resources while some front shows them (ClusterSession::setLookedAt).
    void lookAt(const QString &cluster, const QStringList &runIds);
    // A sample of what the runs' running jobs use now, stored with the runs: {"sampled", "problems"}.
    SessionOperation *sampleResources(const QString &cluster, const QStringList &runIds);
    // The stacks of every process of the run's running job, kept by the agent: {"dump", "path"}.
    SessionOperation *stackDump(const QString &cluster, const QString &runId);
    void answerHostKey(const QString &cluster, bool trust);
    void answerCredential(const QString &cluster, std::optional<QString> answer);

    // What the agent said of each cluster so far.
    ConnectionState state(const QString &cluster) const { return m_clusters.value(cluster).state; }
    QString stateDetail(const QString &cluster) const { return m_clusters.value(cluster).detail; }
    bool needsYou(const QString &cluster) const { return m_clusters.value(cluster).needsYou; }
    QString workDirectory(const QString &cluster) const { return m_clusters.value(cluster).workDirectory; }
    // The agent is submitting a restart on the cluster, or a refused one waits to be tried again: a run that
    // looks ended may go on.
    bool restartsPending(const QString &cluster) const { return m_clusters.value(cluster).restartsPending; }
    // When the agent means to ask the cluster's scheduler next, as it said after its last pass (the interval
    // adapts: docs/agent.md); invalid before the first pass or while not connected.
    QDateTime nextPoll(const QString &cluster) const { return m_clusters.value(cluster).nextPoll; }
    // The script a submission of `request` sends, byte for byte, once the cluster's work directory is known;
    // before, its paths start with kUnknownWorkDirectory. What the fronts preview (and `submit --edit` edits).
    SubmissionScript previewSubmission(const LaunchRequest &request) const;
    // The run's series from the store, kept current by the agent's events; null when the store cannot be read.
    const RunSeries *series(const QString &runId) { return m_series.series(runId); }
    RunSeriesCache *seriesCache() { return &m_series; } // the process's one copy of each run's series
    RunStore *store() const { return m_store; }
    // The front's cluster profiles, which it edits (the agent reads the saved file again).
    void setProfiles(ProfileStore *profiles) { m_profiles = profiles; }
    ProfileStore *profiles() const { return m_profiles; }
    // The window's: its profiles follow the file as the agent and other fronts save it (profilesFollowed).
    void followProfiles();
    // The front saved the profiles: the agent's sessions take them now.
    SessionOperation *profilesChanged();

signals:
    void attached();
    void detached(const QString &reason);
    void stateChanged(const QString &cluster, torchdeck::ConnectionState state, const QString &detail);
    void hostKeyConfirmationNeeded(const QString &cluster, const torchdeck::HostKeyCheck &key);
    void credentialNeeded(const QString &cluster, const torchdeck::CredentialPrompt &prompt);
    void runUpdated(const QString &runId);
    void metricsArrived(const QString &runId, int attempt, const QList<torchdeck::MetricEvent> &events);
    void seriesReset(const QString &runId); // read series(runId) again
    // A run's news the agent told its user (core/runs/runnotice.h): event "completed", "failed", "restarted",
    // "restart_failed".
    void notice(const QString &runId, const QString &event, const QString &title, const QString &body);
    void refreshed(const QString &cluster, const QString &problem);
    void restarted(const QString &runId, const QString &jobId, const QString &reason);
    void restartFailed(const QString &runId, const QString &error);
    void submitted(const torchdeck::LaunchResult &result);
    void storeFailed(const QString &error);
    void workDirectoryKnown(const QString &cluster, const QString &directory);
    // profiles() took what another writer saved: the agent read these clusters' shapes, or a front edited them.
    void profilesFollowed(const QStringList &clusters);
    void profilesUnreadable(const QString &error);

private:
    struct ClusterNews {
        ConnectionState state = ConnectionState::Disconnected;
        QString detail;
        bool needsYou = false;
        QString workDirectory;
        bool restartsPending = false;
        QDateTime nextPoll; // invalid: none planned
    };
    // One request of the protocol's table (core/agent/agentops.h); the operation finishes with the agent's
    // reply, which replyOf<Op> reads (or fails when no agent can be reached, or the agent does not know it).
    template <class Op> SessionOperation *call(const typename Op::Request &request)
    {
        return this->request(QString::fromUtf16(Op::name), agent::encodeFields(request));
    }
    SessionOperation *request(const QString &op, const QCborMap &args);
    void connectSocket();
    void socketConnected();
    void socketFailed(QLocalSocket::LocalSocketError error);
    void socketGone();
    void readFrames();
    void received(const AgentMessage &message);
    void event(const AgentMessage &message);
    void helloAnswered(const AgentMessage &reply);
    // Asks an agent of another version to finish and go, in the words of its protocol version.
    void handOver(int protocolVersion = kAgentProtocolVersion);
    void noAnswer();
    void checkLiveness();
    void send(qint64 id);
    void failAll(const QString &reason);
    void lost(const QString &reason);

    Options m_options;
    RunStore *m_store;
    ProfileStore *m_profiles = nullptr;
    RunSeriesCache m_series;
    QLocalSocket m_socket;
    std::unique_ptr<AgentFrameReader> m_reader;
    QTimer m_retry;
    QTimer m_answerDeadline; // for the agent's answer to hello
    // While requests wait: an agent silent for a while is asked for its status, and one that stays silent (stopped)
    // fails them rather than hang its front.
    QTimer m_liveness;
    QElapsedTimer m_lastHeard;
    QElapsedTimer m_pingSent;
    qint64 m_pingId = 0;
    bool m_agentSilent = false;
    enum class Phase { Detached, Connecting, Greeting, HandingOver, Attached } m_phase = Phase::Detached;
    bool m_attached = false;
    bool m_startedAgent = false;
    bool m_handedOver = false; // this attach asked an agent to hand over already
    int m_connectTries = 0;
    QString m_agentVersion;
    qint64 m_agentPid = 0;
    QStringList m_agentOperations; // what the attached agent said it knows
    agent::ClosingEvent m_closing; // why the agent closes this connection, as it said
    int m_busyTries = 0;           // refused for now, tried again
    qint64 m_nextId = 1;
    qint64 m_helloId = 0;
    struct Pending {
        QString op;
        QCborMap args;
        QPointer<SessionOperation> operation;
        bool sent = false;
    };
    QHash<qint64, Pending> m_pending;
    QHash<QString, ClusterNews> m_clusters;
    QHash<QString, QStringList> m_looking; // lookAt's, said again to an agent attached anew
};

} // namespace torchdeck
