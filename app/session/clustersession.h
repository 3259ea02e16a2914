#pragma once

#include "core/agent/portforward.h"
#include "core/clustercheckitem.h"
#include "core/connectionquestions.h"
#include "core/connectionstate.h"
#include "core/jobs/resumefrom.h"
#include "core/metrics/resourcesample.h"
#include "core/profiles/clusterprofile.h"
#include "core/runs/launchrequest.h"
#include "core/runs/pollschedule.h"
#include "core/runs/sweepsubmission.h"
#include "core/store/runrecord.h"
#include "core/store/seriescache.h"
#include "core/store/storeresult.h"

#include <QHash>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>

namespace torchdeck {

struct CodeCopyState;
struct RemoteFileSum;
namespace agent {
struct RunDeletion;
}

class PortForwarder;
class RunStore;
class SessionOperation;
class Submission;

// One cluster in the agent: its connection, the run tracker and its polling, the restart policy (on for
// every run unless switched off for it, up to its spec's restart limit), submissions (new runs, chains,
// resumes and branches), cancel and requeue, the one cache of each run's series, and every remote operation
// a front needs (checkpoints, logs, the cluster check, code snapshots), each written once here. Widget-free
// and free of remote/ types: the fronts reach it through the agent's socket (session/agentclient.h).
class ClusterSession : public QObject {
    Q_OBJECT
public:
    ClusterSession(const ClusterProfile &profile, const QString &sshConfigFile, RunStore *store,
                   QObject *parent = nullptr);
    ~ClusterSession() override;

    QString name() const { return m_profile.name; }
    const ClusterProfile &profile() const { return m_profile; }
    // An edited profile replaces the tracker (before the next pass when one runs); the session's signals
    // stay the same, so the fronts notice nothing.
    void setProfile(const ClusterProfile &profile);
    RunStore *store() const { return m_store; }
    ConnectionState state() const;
    QString stateDetail() const;
    bool isConnected() const { return state() == ConnectionState::Connected; }

    // Calls `then` once the profile's shape (partitions or queues, accounts, QOS: ClusterProfile) is fresh: read
    // now when older than half a day (once per 10 minutes when reading fails), at once otherwise. `then` is told why
    // the partitions could not be read (empty: they were, or are fresh).
    void readShape(QObject *context, const std::function<void(const QString &problem)> &then);

    void open(); // no-op while connected or connecting
    void close();
    // Calls `then` once connected (at once if so), or `failed` with the reason. Never blocks.
    void whenConnected(QObject *context, const std::function<void()> &then,
                       const std::function<void(const QString &)> &failed);
    // The profile's work directory made absolute on the cluster (its symlinks resolved, as a submission
    // resolves it), asked once connected; empty until known (workDirectoryKnown).
    QString workDirectory() const { return m_workDirectory; }

    // Polls every interval while connected, and once on connecting; refresh() polls now (ignored while a pass
    // runs).
    // The interval the fronts wish for; the session polls no faster than the profile's min_poll_seconds, and backs
    // off while the scheduler fails or answers slowly. A new interval counts from the last poll: fronts that come
    // and go (a status loop) change it often, and must not put the next poll off each time.
    void setPollInterval(int ms);
    int pollInterval() const { return m_pollMs; } // what it polls at now
    int nextPollMs() const;                       // until the next poll; -1: none planned
    void refresh(const QStringList &runIds = {});
    ConnectionLoad connectionLoad() const; // what the cluster's login node was asked since the session began
    bool isRefreshing() const;
    bool isRestarting() const;   // a restart's submission is in flight
    bool hasRestartsDue() const; // a restart the scheduler refused waits to be tried again

    const RunSeries *series(const QString &runId) { return m_series.series(runId); }

    // Questions of the connection (host key, passwords, one-time codes): with a handler set, they are
    // signalled and wait for answer*(); without one they are refused at once (the connection then fails).
    void setInteractive(bool interactive);
    void answerHostKey(bool trust);
    void answerCredential(std::optional<QString> answer);

    // The operations below report as SessionOperations (their replies and events as the protocol declares them,
    // core/agent/agentops.h and agentevents.h); each connects first when needed.

    // Connected (agent::Open), or why not.
    SessionOperation *connectOperation();
    // One pass over these runs (all unfinished ones when empty), or none when a pass that ended at most
    // maxAgeMs ago covered them (agent::Refresh). A restart the pass decided on is submitted before it ends.
    SessionOperation *refreshOperation(const QStringList &runIds, int maxAgeMs);
    // A new run; chain > 1 also queues chain - 1 further attempts, each to start if the one before fails
    // (afternotok), each resuming from the latest checkpoint. Events agent::RenderedEvent and JobEvent;
    // the reply agent::SubmitReply.
    SessionOperation *submit(const LaunchRequest &request, int chain = 1);
    // The next attempt of a run of another cluster, here (agent::ContinueOn): its checkpoint pulled from there
    // (`sessionOf` gives that cluster's session), placed in the run's directory here and checked, then resumed.
    // `moving`: the run's waiting (held) job there that this attempt replaces (resumeRequest).
    SessionOperation *continueRun(const QString &runId, const ResumeFrom &from, const QString &epochs,
                                  const std::function<ClusterSession *(const QString &)> &sessionOf,
                                  const QString &moving = {});
    // Uploads a local file into the run's directory here (`relative` inside it), checks its SHA-256 there, then
    // `then(path)`; progress and failure go to `operation`.
    void placeRunFile(SessionOperation *operation, const QString &runId, const QString &relative,
                      const QString &localPath, const QString &sha256,
                      const std::function<void(const QString &)> &then);
    // When the scheduler would start a job of `script` (agent::EstimateStart), nothing submitted.
    SessionOperation *estimateStart(const QString &script);
    // The same for the run's next attempt here, as resumeRequest would send it (`moving`: its waiting job elsewhere).
    SessionOperation *estimateRestart(const QString &runId, const QString &moving);
    // A sweep (stored first, its runs joining it as their jobs are sent): one job array of every point (at
    // most maxRunning tasks at a time, 0: no limit) or a job per point, one after the other; it stops at the
    // first point that fails. Finishes with agent::SubmitReply (the sweep, each run's result).
    SessionOperation *submitSweep(const SweepRecord &sweep, const QList<SweepPointRequest> &points, bool asArray,
                                  int maxRunning);
    // A sweep's runs that ended short of completing, each resumed from its latest checkpoint after a pass over them
    // (agent::ResumeSweep); deleting a sweep and its runs from the store, refused while one goes on
    // (agent::DeleteSweep). The runs are chosen here, under the agent's own view of them (core/runs/sweeptable.h).
    SessionOperation *resumeSweep(const QString &sweepId);
    SessionOperation *deleteSweep(const QString &sweepId, bool refreshFirst);
    // The next attempt of an ended run from a checkpoint (the latest; a step, file name or path: a branch).
    SessionOperation *resume(const QString &runId, const ResumeFrom &from, const QString &epochs,
                             const QString &moving = {});
    // Holds, releases or cancels one job of a run (a restart's move, session/runmover.h): agent::RunActionReply.
    SessionOperation *jobAction(SchedulerAction action, const QString &runId, const QString &jobId);
    // The unfinished jobs of these runs, newest first, one at a time (a cancelled attempt of a chain would
    // start the next): agent::RunActionReply. Runs without one are left as they are.
    SessionOperation *cancel(const QStringList &runIds);
    // The scheduler stops the run's running job and queues it again (it resumes from its checkpoint).
    SessionOperation *requeue(const QString &runId);
    // The automatic restart from outside of one run (on unless switched off; stored with the run).
    [[nodiscard]] StoreStatus setAutoRestart(const QString &runId, bool enabled);
    // The same as an operation: switched on for a run whose job stopped to be requeued meanwhile, it ends once
    // that restart was submitted or refused (agent::AutoRestart's reply says which); else at once.
    SessionOperation *autoRestartOperation(const QString &runId, bool enabled);
    // The run's name and note replaced where given, tags added and removed (agent::AnnotateRun).
    SessionOperation *annotateRun(const QString &runId, const std::optional<QString> &name,
                                  const std::optional<QString> &note, const QStringList &addTags,
                                  const QStringList &removeTags);
    // Which of the run's recorded checkpoints are still on the cluster (agent::Checkpoints).
    SessionOperation *presentCheckpoints(const QString &runId);
    // Deletes checkpoints named as listed (file names or steps; never the latest) on the cluster and in the
    // store (agent::DeleteCheckpoints).
    SessionOperation *deleteCheckpoints(const QString &runId, const QStringList &wanted);
    // One command in a bash login shell inside the run's running job, on `node` (empty: its first), with its output
    // and exit code (agent::JobCommand).
    SessionOperation *jobCommand(const QString &runId, const QString &node, const QString &command);
    // An interactive login shell there on a pseudo-terminal: output as DataEvents, keys and sizes through
    // SessionOperation::input (agent::JobShell).
    SessionOperation *jobShell(const QString &runId, const QString &node, int cols, int rows);
    // The run's files under `path` (relative to its directory; core/runs/runfiles.h), marked (agent::RunFiles).
    SessionOperation *listRunFiles(const QString &runId, const QString &path);
    // Files of the run (and a checkpoint: "latest", "best", a step or file name) copied into the local directory `to`,
    // each checked by its SHA-256 on both sides before it takes its name (agent::Pull).
    SessionOperation *pullRunFiles(const QString &runId, const QStringList &files, const QString &checkpoint,
                                   const QString &to);
    // Runs removed from the store, and with `remote` their directories (those on the clusters where earlier attempts
    // ran first, through `sessionOf`); refused while a job of one goes on, after a pass over them
    // (agent::DeleteRuns).
    SessionOperation *deleteRuns(const QStringList &runIds, bool remote, bool dryRun,
                                 const std::function<ClusterSession *(const QString &)> &sessionOf = {});
    // The directories here of runs that went on on another cluster, measured and unless dryRun removed; their
    // records stay (the other cluster's deleteRuns removes them). Replies agent::DeleteRuns.
    SessionOperation *removeRunDirectoriesHere(const QStringList &runIds, bool dryRun);
    // A cluster file (a log): whole (lastLines < 0) or its last lines, as agent::DataEvents of at most a MiB
    // each.
    SessionOperation *readFile(const QString &path, int lastLines);
    // A file followed by byte offset from `offset` (lastBytes > 0: that many bytes before its end) until stopped:
    // agent::DataEvent, ResetEvent when it was truncated or replaced (delivery restarts at 0).
    SessionOperation *followFile(const QString &path, qint64 offset, qint64 lastBytes = 0);
    // "Check cluster": an agent::ItemEvent per line as it is checked, all of them at the end.
    SessionOperation *check(const ClusterCheckSettings &settings);
    // The code snapshots on the cluster (agent::CodeSnapshots).
    SessionOperation *codeSnapshots();
    // Deletes the snapshots no unfinished run uses (states as the scheduler says them now):
    // agent::PruneCode.
    SessionOperation *pruneCodeSnapshots();
    // The work directory, resolved (agent::WorkDirectory).
    SessionOperation *workDirectoryOperation();
    // Forwards 127.0.0.1:localPort (0: a free one) to remotePort on the first node of the run's newest job,
    // at the address the scheduler gives for it, once a first connection through it succeeded
    // (agent::ForwardReply). Kept until stopForwards or the run's end, through reconnects; a refusal fails the
    // operation, in words.
    SessionOperation *startForward(const QString &runId, int remotePort, int localPort);
    // What the runs' running jobs use now (core/scheduler/resourceprobe.h), one command per job: each sample is
    // stored as a Resources event and told as metricsArrived (agent::Resources); runs with no running job are
    // left out.
    SessionOperation *sampleResources(const QStringList &runIds);
    // A stack dump of every process of the run's running job (core/runs/stackdump.h), kept with the run in
    // the data folder (agent::StackDump).
    SessionOperation *stackDump(const QString &runId);
    // The runs a front shows: their running jobs are sampled every kResourceSampleMs (only these: a sample is a
    // step on the job's nodes).
    void setLookedAt(const QStringList &runIds);

    // Stops the forwards of this local port (0: any) and run (empty: any); returns those stopped.
    QList<PortForward> stopForwards(int localPort, const QString &runId);
    QList<PortForward> forwards() const;

signals:
    void stateChanged(const QString &cluster, torchdeck::ConnectionState state, const QString &detail);
    void hostKeyConfirmationNeeded(const QString &cluster, const torchdeck::HostKeyCheck &key);
    void credentialNeeded(const QString &cluster, const torchdeck::CredentialPrompt &prompt);
    void runUpdated(const QString &runId);
    void metricsArrived(const QString &runId, int attempt, const QList<torchdeck::MetricEvent> &events);
    // The run's series changed in ways no batch of events says: read series(runId) again.
    void seriesReset(const QString &runId);
    void refreshed(const QString &problem); // one pass ended; empty: all went well
    void restartDecided(const QString &runId, bool restart, const QString &reason); // see RunTracker
    void runEnded(const QString &runId, const QString &stateBefore);                // see RunTracker
    void restarted(const QString &runId, const QString &jobId, const QString &reason);
    void restartFailed(const QString &runId, const QString &error);
    void runStalled(const QString &runId, const QString &message);                       // see RunTracker
    void runWaiting(const QString &runId, const QString &jobId);                         // see RunTracker
    void moveDue(const QString &runId, const QString &jobId);                            // see RunTracker
    void leftBehind(const QString &runId, const QString &jobId, const QString &cluster); // see RunTracker
    void submitted(const torchdeck::LaunchResult &result); // every job a submission of this session sent
    void storeFailed(const QString &error);
    void workDirectoryKnown(const QString &directory);
    void shapeRead(const QString &cluster, const torchdeck::ClusterProfile &shaped); // for the profile file

private:
    // A run's code snapshot `id` copied here from `source` (only what this cluster lacks), through `local` on this
    // machine (sessioncodecopy.cpp); then `then`, failures to `operation`.
    void pullAndPlaceCheckpoint(SessionOperation *operation, ClusterSession *source, const QString &runId,
                                const ResumeFrom &from, const QString &epochs, const QString &moving,
                                const QString &local, bool straight = true);
    // The checkpoint copied straight from `source` with `ssh <reach>` on this login node (sessionstraightcopy.cpp):
    // done(its path here), or fallBack(why) where that copy failed; a checkpoint that is not there fails `operation`.
    void copyCheckpointStraight(SessionOperation *operation, ClusterSession *source, const QString &runId,
                                const QString &checkpoint, const QString &reach,
                                const std::function<void(const QString &)> &done,
                                const std::function<void(const QString &)> &fallBack);
    void copyCodeSnapshot(SessionOperation *operation, ClusterSession *source, const QString &runId, const QString &id,
                          const QString &local, const std::function<void()> &then);
    void copyMissingObjects(SessionOperation *operation, const std::shared_ptr<CodeCopyState> &copy,
                            const QByteArray &manifest, const std::function<void()> &then);
    void copyNextObject(SessionOperation *operation, const std::shared_ptr<CodeCopyState> &copy,
                        const std::function<void()> &then);
    // The run's checkpoints that lie on this cluster (CheckpointPlaces): a run continued elsewhere has others there.
    StoreResult<QList<CheckpointRecord>> checkpointsHere(const QString &runId) const;
    friend struct SessionInternals; // session/sessioninternals.h: the remote side, for this library only
    struct Parts;                   // the connection and the tracker
    struct PullPlan;
    // The run's files here (and a checkpoint: "latest", "best", a step or file name), each with its size and SHA-256:
    // then(sums, the run's directory), or failed(why).
    void sumRunFiles(QObject *context, const QString &runId, const QStringList &wanted, const QString &checkpoint,
                     const std::function<void(const QList<RemoteFileSum> &, const QString &)> &then,
                     const std::function<void(const QString &)> &failed);
    void pullNext(SessionOperation *operation, std::shared_ptr<PullPlan> plan);
    void downloadOne(SessionOperation *operation, std::shared_ptr<PullPlan> plan);
    void pulled(SessionOperation *operation, std::shared_ptr<PullPlan> plan, qint64 resumedAt, bool alreadyThere,
                const QString &keptAs = {});
    void inJobAfterPass(SessionOperation *operation, const QString &runId, const std::function<void()> &then);
    void removeRuns(SessionOperation *operation, const QList<RunRecord> &runs, bool remote, bool dryRun,
                    const std::function<ClusterSession *(const QString &)> &sessionOf);
    // Why these runs may not be deleted now (a job of one goes on), or empty.
    QString refusal(const QList<RunRecord> &runs) const;
    // Each cluster's directories of `elsewhere` (cluster -> runs) removed in turn, noted in `runs`, then `then`.
    void removeElsewhere(SessionOperation *operation, const QList<agent::RunDeletion> &runs,
                         QMap<QString, QStringList> elsewhere, bool dryRun,
                         const std::function<ClusterSession *(const QString &)> &sessionOf,
                         const std::function<void(const QList<agent::RunDeletion> &)> &then);
    // The size of each directory of `runs` here, and unless dryRun its removal; a refused one fails `operation`.
    void measureAndRemove(SessionOperation *operation, const QList<agent::RunDeletion> &runs, bool dryRun,
                          const std::function<void(const QList<agent::RunDeletion> &)> &then);
    void makeTracker();
    void replaceTrackerIfIdle();
    SessionOperation *startSubmission(Submission *submission);
    void reportSubmission(Submission *submission, SessionOperation *operation); // its progress and jobs
    void onStateChanged(ConnectionState state, const QString &detail);
    void resolveWorkDirectory();
    void installFollower(const QString &directory); // the login-node follower (remote/followerinstall.h)
    // The address the login node reaches the first node of a running job at: then(node, address).
    void findJobNode(QObject *context, const QString &jobId, const QString &localState,
                     const std::function<void(const QString &node, const QString &address)> &then,
                     const std::function<void(const QString &error)> &failed);
    void forwardTo(SessionOperation *operation, PortForward forward, int localPort);
    // One sample of the run's running job; `done` with the error, empty when stored (or there was no job).
    void sampleRun(QObject *context, const QString &runId, const std::function<void(bool, const QString &)> &done);
    // Runs `command` once connected; `done` gets its exit code, stdout and stderr, or the error.
    void runCommand(QObject *context, const QString &command,
                    const std::function<void(int exitCode, const QByteArray &out, const QByteArray &err)> &done,
                    const std::function<void(const QString &error)> &failed, int deadlineMs = 0);

    ClusterProfile m_profile;
    RunStore *m_store;
    std::unique_ptr<Parts> m_parts;
    RunSeriesCache m_series;
    bool m_trackerStale = false; // made with an earlier profile
    QTimer m_timer;              // its interval is m_pollMs but for a round shortened by setPollInterval
    int m_pollMs = 0;
    PollSchedule m_schedule; // the fronts' wish, quiet passes, back-off (core/runs/pollschedule.h)
    void applyPollInterval();
    void pollSoon();         // a job said it stops: its end is asked for soon
    void applyFollowPaces(); // the shown runs' files fast, the others at the poll interval
    QString m_workDirectory;
    bool m_resolving = false;
    QDateTime m_lastPass;
    QStringList m_lastPassRuns; // empty: all of the cluster's unfinished runs
    // The forwards the agent keeps for this cluster, children of the session.
    QList<PortForwarder *> m_forwards;
    QStringList m_lookedAt;
    QTimer m_resourceTimer;
    QSet<QString> m_sampling; // runs whose sample is in flight
    struct LastSample {
        QString jobId;
        ResourceSample sample;
    };
    // By run, while it is looked at: the CPU percent is since the sample before of the same job.
    QHash<QString, LastSample> m_lastSample;
    bool shapeIsFresh() const;   // read less than half a day ago (here or by a check)
    bool shapeReadWaits() const; // a read failed less than 10 minutes ago: not tried again yet
    bool m_readingShape = false;
    QDateTime m_shapeTriedAt;
    struct ShapeWaiter {
        QPointer<QObject> context;
        std::function<void(const QString &)> then;
    };
    QString m_shapeProblem; // why the last read failed; empty after one that did not
    QList<ShapeWaiter> m_shapeWaiters;
};

} // namespace torchdeck
