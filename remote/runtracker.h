#pragma once

#include "core/jobs/jobtrace.h"
#include "core/profiles/clusterprofile.h"
#include "core/runs/launchrequest.h"
#include "core/runs/loggerfilediff.h"
#include "core/runs/restartretries.h"
#include "core/runs/stallcheck.h"
#include "core/scheduler/jobinfo.h"
#include "core/store/runrecord.h"
#include "core/store/runstore.h"
#include "remote/connectionstate.h"
#include "remote/stepsequence.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <optional>

namespace torchdeck {
class RunStore;
class RunSeriesCache;
struct LaunchResult;
} // namespace torchdeck

namespace torchdeck::remote {

class Connection;
class RemoteTail;

// Brings the stored runs of one cluster up to date, in one pass of declared steps: the state of every
// unfinished job by ONE scheduler poll, the new lines of each of their metrics files from the stored offset
// (events and offset saved together; a running job's files streamed as they grow, between passes too), the attempts of
// a chain that can no longer start cancelled, then each run's progress and, where the policy allows, its restart. The
// runs' series are kept current in `series`. One file per part of the pass: runtracker.cpp (which runs and jobs),
// runtrackerpolling.cpp (the poll, a chain's leftovers), runtrackerreading.cpp, runtrackerfollowing.cpp and
// runtrackerloggerfiles.cpp (what the jobs wrote), runtrackersettling.cpp (state, message, restarts). What each decides
// is a pure function of core/runs.
class RunTracker : public QObject {
    Q_OBJECT
public:
    RunTracker(Connection *connection, ClusterProfile profile, RunStore *store, RunSeriesCache *series,
               QObject *parent = nullptr);
    ~RunTracker() override; // stops its streams

    // One pass over these runs (all of this cluster's unfinished runs when empty). Ignored while one runs.
    void refresh(const QStringList &runIds = {});
    // Restart runs whose job ended to be requeued (wall time, preemption, the trainer's exit 75) as a new
    // attempt from the latest checkpoint, unless the run's own switch is off; off by default. See
    // core/runs/restartdecision.h.
    void setAutoRestart(bool enabled) { m_autoRestart = enabled; }
    // Running jobs' files stream (Connection::tail): the shown runs' fast, a line on screen within
    // milliseconds; the others as rarely as the scheduler is polled (othersMs). Off: every file is read by a
    // command per pass, as before streaming (scripts/bench-remote compares the two).
    void setFollowPaces(const QStringList &shownRunIds, int othersMs);
    void setStreaming(bool streaming) { m_streaming = streaming; }
    // A run that has ended: restart it now if the policy allows (its switch was just turned on).
    void reconsider(const QString &runId);
    bool isRefreshing() const { return m_pass.isRunning(); }
    // The cluster's work directory, absolute (the runs' directories, where jobs keep their own record); empty
    // while unknown.
    void setWorkDirectory(const QString &directory) { m_workDirectory = directory; }
    // The last pass's scheduler query: it failed (refused, timed out), or how long its answer took.
    bool lastPollFailed() const { return m_pollFailed; }
    qint64 lastPollDurationMs() const { return m_pollDurationMs; }
    // The last pass found no job that changed its state, and none waiting to start (or to be restarted).
    bool lastPassQuiet() const;
    bool isRestarting() const { return !m_restarting.isEmpty(); } // a restart is being submitted
    // A restart the scheduler refused is tried again later: the run is not over for a front that waits.
    bool hasRestartsDue() const { return !m_retries.isEmpty(); }

signals:
    void metricsArrived(const QString &runId, int attempt, const QList<torchdeck::MetricEvent> &events);
    // Another process on the store stored the run's new events: its series is to be read again.
    void seriesReset(const QString &runId);
    void runUpdated(const QString &runId);
    // The run settled into an end in this pass (not to be restarted); `stateBefore`: its state until now.
    void runEnded(const QString &runId, const QString &stateBefore);
    void refreshed(const QString &problem); // empty: all went well
    // The policy's word on an ended run: restart it (the new attempt is being submitted), or not, and why.
    void restartDecided(const QString &runId, bool restart, const QString &reason);
    void restarted(const QString &runId, const QString &jobId, const QString &reason);
    void restartFailed(const QString &runId, const QString &error);
    // The run's job shows no sign of progress for longer than its threshold (runtrackerstalls.cpp); once per
    // stall.
    void runStalled(const QString &runId, const QString &message);
    // The job has waited past the profile's wait_notice_seconds for a reason of the scheduler's; once per job.
    void runWaiting(const QString &runId, const QString &jobId);
    // A restart of a run with --move-after has waited that long (restartWaitedToMove); again each such period
    // while it still waits, for the agent to ask whether another cluster would start it sooner (session/runmover.h).
    void moveDue(const QString &runId, const QString &jobId);
    // A run of this cluster still has an unfinished job on `cluster`: a move's waiting job whose agent stopped before
    // it was cancelled there, or whose cancel failed. Again every 5 minutes while the store says so.
    void leftBehind(const QString &runId, const QString &jobId, const QString &cluster);
    void failed(const QString &error); // the store broke

private:
    void collect(const StepHandle &step);
    void pollJobs(const StepHandle &step);
    void jobsPolled(const torchdeck::JobListResult &result);
    // Jobs the scheduler answered for and forgot, settled from their own record (runtrackerforgotten.cpp).
    void settleForgottenJobs(const StepHandle &step);
    void settleForgottenJob(JobRecord &job, const torchdeck::JobTrace &trace);
    void readAllMetrics(const StepHandle &step);
    void readMetrics(const JobRecord &job, const std::function<void()> &done);
    // What a read of a job's file gave, stored: the offset the store now has for it; none where the store took
    // nothing (another writer was first, or it failed).
    std::optional<qint64> metricsRead(const JobRecord &job, const QByteArray &bytes);
    // A custom command's log, parsed with log patterns (core/metrics/logmetrics.h).
    void readLog(const JobRecord &job, const std::function<void()> &done);
    std::optional<qint64> logRead(const JobRecord &job, const QByteArray &bytes);
    // Files the command's own logger writes (runtrackerloggerfiles.cpp).
    void findLoggerFiles(const StepHandle &step); // one command for every custom run of the pass
    void readLoggerFiles(const JobRecord &job, const std::function<void()> &done);
    void readLoggerFile(const QString &runId, QList<torchdeck::LoggerFileChange> files,
                        const std::function<void()> &done);
    void loggerFileRead(const QString &runId, const torchdeck::LoggerFileChange &change, const QByteArray &bytes);
    // The bytes of a cluster file from `offset` on, to `take`; `done` when that is over.
    void readTail(const QString &file, qint64 offset, const std::function<void()> &done,
                  const std::function<void(const QByteArray &)> &take);
    // The events of a file read, stored by `append` with the file's new offset (a RunStore append); then
    // the cache and the fronts hear of them, unless another front on the store stored them first.
    bool storeEvents(const QString &runId, int attempt, const QList<torchdeck::MetricEvent> &events,
                     const std::function<torchdeck::StoreResult<bool>()> &append);
    JobRecord withStoredOffsets(const JobRecord &job) const;
    // A running job's files, followed as they grow (runtrackerfollowing.cpp); false: read once per pass (readTail).
    bool streams(const JobRecord &job);
    QList<std::pair<QString, RunStore::TailedFile>> followedFilesOf(const JobRecord &job) const;
    void follow(const JobRecord &job, RunStore::TailedFile which, const QString &path);
    void unfollow(const QString &path);
    void unfollowJob(const JobRecord &job);
    void unfollowAllBut(const QSet<QString> &paths);
    void followedData(const QString &path, qint64 at, const QByteArray &bytes);
    void cancelWaitingInVain(const StepHandle &step); // attempts of a chain whose turn can no longer come
    // The logs of jobs that ended, on this machine (a few jobs a pass); `done` when those are read.
    void keepEndedLogs(const std::function<void()> &done);
    void noteLogsToKeep(const RunRecord &run, const JobRecord &job); // an ended job of the store, unless settled
    bool isLogUnnoted(const JobRecord &job) const; // ended, with a log, neither kept nor waiting to be
    void keepLogs(const JobRecord &job, const std::function<void()> &done);
    void settleRuns(const StepHandle &step);
    void settleRun(const QString &runId);
    void considerRestart(const RunRecord &run, const QList<JobRecord> &jobs);
    struct PlannedRestart {
        torchdeck::LaunchRequest request;
        QString reason;
    };
    // The next attempt of an ended run, where the policy restarts it; the decision is told either way.
    std::optional<PlannedRestart> planRestart(const RunRecord &run, const QList<JobRecord> &jobs);
    void launch(const torchdeck::LaunchRequest &request, const QString &reason);
    void markRequeued(const QString &runId);
    void takeOverExpiredClaims(); // of fronts that stopped while submitting
    void settleUnclaimedRestarts(const QStringList &runIds);
    void noticeChangesFromElsewhere(const QList<RunRecord> &runs, const QSet<QString> &tracked);
    void retryRefusedRestarts(const QSet<QString> &tracked);
    void noteOnRun(const QString &runId, const QString &message); // written unless the run says it already
    void markActive(const QString &runId);                        // its job's files grew just now
    void watchStalls(const StepHandle &step);
    void askToMove(const JobRecord &job); // as it is now, polled: moveDue when its time has come
    void tellLeftBehind(const JobRecord &job);
    void nameStall(const JobRecord &job, double quiet, const torchdeck::StallThreshold &threshold);
    void noteStall(const QString &runId, const QString &message); // empty: no longer stalled
    void note(const QString &problem);

    QPointer<Connection> m_connection;
    ClusterProfile m_profile;
    RunStore *m_store;
    RunSeriesCache *m_series;
    StepSequence m_pass;
    QStringList m_runs;               // of this pass
    QList<JobRecord> m_jobs;          // unfinished jobs of this pass, as stored before it
    QHash<QString, JobInfo> m_polled; // what this pass's poll said, by job id
    QStringList m_problems;
    QHash<QString, QStringList> m_logPatterns; // custom commands' runs of this pass: their own patterns
    QSet<QString> m_loggerFilesRead;           // runs whose logger files this pass read
    QHash<QString, QList<LoggerFileRecord>> m_loggerFilesFound; // this pass's find, by run (searched runs only)
    bool m_autoRestart = false;
    QSet<QString> m_restarting;                 // runs whose next attempt is being submitted
    RestartRetries m_retries;                   // runs whose restart failed: when to try again
    QHash<QString, QDateTime> m_seenUpdates;    // each run's last write, as the last pass saw it
    QHash<QString, double> m_activity;          // running runs: when their files last grew (Unix seconds)
    QSet<QString> m_stalled;                    // runs noted as stalled
    QSet<QString> m_toldWaiting;                // jobs told of as waiting past the limit
    QHash<QString, QDateTime> m_moveAsked;      // restarts the agent was asked to move: when
    QHash<QString, QDateTime> m_toldLeftBehind; // other clusters' jobs of this cluster's runs ("cluster job"): when
    bool m_wholePass = true;                    // this pass is over all of the cluster's runs
    bool m_pollFailed = false;
    bool m_pollComplete = false; // the queue and the history answered, all of it readable
    QString m_workDirectory;
    qint64 m_pollDurationMs = 0;
    bool m_jobsChanged = false;
    struct FollowedFile {
        JobRecord job;
        RunStore::TailedFile which = RunStore::TailedFile::Metrics;
        qint64 stored = 0;  // the offset the store has
        QByteArray pending; // bytes after it, not yet a whole line
        QPointer<RemoteTail> tail;
    };
    QHash<QString, FollowedFile> m_followed; // by path
    QSet<QString> m_unfollowable;            // files a stream could not follow: read once per pass
    QSet<QString> m_logsKept;                // "run/attempt" whose logs are settled here: kept, none, or too old
    QHash<QString, JobRecord> m_logsToKeep;  // ended jobs whose logs are still to keep, by "run/attempt"
    QStringList m_shownRuns;
    int m_othersFollowMs = 3000;
    bool m_streaming = true;
    TailPace paceOf(const QString &runId) const;
};

} // namespace torchdeck::remote
