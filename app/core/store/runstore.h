#pragma once

#include "core/metrics/runseries.h"
#include "core/store/runrecord.h"
#include "core/store/storeresult.h"
#include "core/store/storeschema.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <functional>
#include <optional>

namespace torchdeck {

// What claiming an attempt came to (RunStore::claimAttempt).
struct AttemptClaim {
    enum class Outcome {
        Claimed,          // this owner holds it now: submit it
        TakenOver,        // an earlier owner's lease ran out before it recorded a job: look for that job first
        HeldByAnother,    // another front is submitting it (owner says who)
        AlreadySubmitted, // it has its job (jobId) already
    };
    Outcome outcome = Outcome::Claimed;
    QString owner; // HeldByAnother / TakenOver: the other owner
    QString jobId; // AlreadySubmitted
};

// A claim whose owner stopped before it recorded a job: what was to be submitted (a LaunchRequest as JSON).
struct ExpiredClaim {
    QString runId;
    int attempt = 0;
    QString owner;
    QString request;
};

// The local history of runs: runs, their jobs with tail offsets, cached metrics and checkpoints, in SQLite.
//
// Threads: a RunStore belongs to the thread that opened it (a QSqlDatabase connection must not cross
// threads). Open one RunStore per thread on the same file; WAL mode lets them read while one writes, and a
// writer waits up to 5 s for another's transaction.
class RunStore {
public:
    // dataDirectory()/runs.sqlite: $TORCHDECK_DATA_DIR, else ~/.local/share/torchdeck
    static QString defaultPath();

    RunStore();
    ~RunStore();
    RunStore(const RunStore &) = delete;
    RunStore &operator=(const RunStore &) = delete;

    // Creates the file and its folder if needed and migrates it to the latest schema. ":memory:" works.
    StoreStatus open(const QString &path = defaultPath());
    StoreStatus open(const QString &path, const QList<StoreMigration> &migrations); // tests' migrations
    // A front's view of the store: SQLite refuses every write through it, since the agent is the store's only writer
    // (it records what the fronts ask). A store that does not exist yet, or is of an older schema, is made or
    // migrated first, as the agent would.
    StoreStatus openReadOnly(const QString &path = defaultPath());
    bool isReadOnly() const { return m_readOnly; }
    void close();
    bool isOpen() const { return !m_connection.isEmpty(); }
    QString path() const { return m_path; }
    int schemaVersion() const { return m_version; }

    // Runs. addRun sets created (when null) and updated; the id must be new.
    StoreStatus addRun(const RunRecord &run);
    StoreStatus updateRun(const RunRecord &run); // every field but id, name, created, autoRestart, note and tags
    // What the user calls a run and wrote of it: each given field replaced (agent::AnnotateRun).
    StoreStatus annotateRun(const QString &runId, const RunAnnotation &annotation);
    StoreStatus setAutoRestart(const QString &runId, bool enabled);
    // A submitted job with its run (added, or updated when the run exists) in one transaction: a reader never
    // sees the run without the job it waits on, nor half of either.
    StoreStatus recordSubmission(const RunRecord &run, const JobRecord &job);
    StoreStatus updateProgress(const QString &runId, const QString &state, qint64 epochsDone, qint64 epochsTotal,
                               double lastLoss, double etaSeconds);
    StoreResult<std::optional<RunRecord>> run(const QString &id) const;
    StoreResult<QList<RunRecord>> runs(const QString &cluster = {}) const; // newest first; all clusters if empty
    StoreStatus removeRun(const QString &id);                              // with its jobs, metrics, checkpoints

    // Submitting an attempt from any number of fronts on one store: it is claimed first (its job row, with no
    // job id yet, the owner, a lease and the request, in one transaction with the run row a new run needs),
    // then given the job id the scheduler said (recordClaimedJob, with the run) or released (a refusal: the
    // run goes too when the claim made it). A claim whose lease ran out, or whose holder is gone
    // (claimHolderGone), may be taken over.
    StoreResult<AttemptClaim> claimAttempt(const RunRecord &run, const JobRecord &job, const QString &owner,
                                           qint64 leaseMs, const QString &request = {});
    StoreStatus recordClaimedJob(const RunRecord &run, const JobRecord &job, const QString &owner);
    StoreStatus releaseClaim(const QString &runId, int attempt, const QString &owner);
    // Claims whose lease ran out, or whose holder is a process of this machine that no longer runs.
    StoreResult<QList<ExpiredClaim>> expiredClaims(const QString &cluster) const;

    // Jobs, keyed by (run, attempt).
    StoreStatus saveJob(const JobRecord &job); // insert or replace
    StoreStatus updateJobState(const QString &runId, int attempt, const QString &state, int exitCode = -1);
    StoreStatus updateJobScheduling(const QString &runId, int attempt, const JobScheduling &scheduling);
    StoreStatus saveOffsets(const QString &runId, int attempt, const TailOffsets &offsets);
    StoreResult<QList<JobRecord>> jobs(const QString &runId) const; // by attempt
    StoreResult<std::optional<JobRecord>> jobByJobId(const QString &cluster, const QString &jobId) const;
    StoreResult<QList<JobRecord>> jobsInStates(const QStringList &states) const; // e.g. the ones to poll

    // Metrics cache. The tailed form writes the events and moves the job's metrics tail offset from
    // fromOffset to toOffset in one transaction: after a crash the cache and the offset agree, so a restarted
    // tail neither loses nor repeats a line. When the stored offset is no longer fromOffset another process
    // on this store has stored those lines: nothing is written and the value is false.
    StoreStatus appendMetrics(const QString &runId, int attempt, const QList<MetricEvent> &events);
    // `file`: whose offset moves: the metrics file's, or the job's log's (events parsed by log patterns).
    enum class TailedFile { Metrics, Stdout };
    StoreResult<bool> appendMetrics(const QString &runId, int attempt, const QList<MetricEvent> &events,
                                    qint64 fromOffset, qint64 toOffset, TailedFile file = TailedFile::Metrics);
    // Files a custom command's own logger writes (TensorBoard, Lightning CSV), each with where it was read to.
    StoreResult<QList<LoggerFileRecord>> loggerFiles(const QString &runId) const;
    // The events read from one, with its offset moved from `before` (all zero: a file new to the store) to
    // `after`, in one transaction; false when another process on the store had moved it already.
    StoreResult<bool> appendLoggerFileMetrics(const QString &runId, const LoggerFileRecord &before,
                                              const LoggerFileRecord &after, const QList<MetricEvent> &events);
    StoreResult<QList<StoredMetricEvent>> metrics(const QString &runId) const; // in arrival order
    StoreResult<RunSeries> runSeries(const QString &runId) const;              // the cache replayed
    // The same, and where the events read end: the position the next appended event takes (metricsEnd).
    StoreResult<RunSeries> runSeries(const QString &runId, qint64 *end) const;
    StoreResult<qint64> metricsCount(const QString &runId) const;
    // The position of the next event appended to the run (0 for none): a front that read up to here applies
    // only the events after it (core/store/seriescache.h).
    StoreResult<qint64> metricsEnd(const QString &runId) const;
    StoreStatus clearMetrics(const QString &runId);

    // Checkpoints, keyed by (run, path).
    StoreStatus saveCheckpoint(const CheckpointRecord &checkpoint);           // insert or replace
    StoreStatus setBestCheckpoint(const QString &runId, const QString &path); // the others lose the mark
    StoreStatus removeCheckpoint(const QString &runId, const QString &path);
    StoreResult<QList<CheckpointRecord>> checkpoints(const QString &runId) const; // by step

    // Sweeps (runstoresweeps.cpp): the grid is stored first, then each point's run joins it once submitted.
    StoreStatus addSweep(const SweepRecord &sweep);
    StoreStatus joinSweep(const QString &runId, const QString &sweepId, const QString &pointJson);
    StoreResult<QList<SweepRecord>> sweeps() const;                             // newest first
    StoreResult<QList<SweepMember>> sweepMembers(const QString &sweepId) const; // in submission order
    StoreStatus removeSweep(const QString &sweepId); // with its runs (their jobs, metrics, checkpoints), at once

private:
    QSqlDatabase database() const;
    StoreStatus notOpen() const;
    StoreResult<qint64> runKey(QSqlDatabase &db, const QString &runId) const;
    // One transaction: `moveOffset` (false: another process stored these already; nothing is written), then
    // the events.
    StoreResult<bool> appendInTransaction(const QString &runId, int attempt, const QList<MetricEvent> &events,
                                          const std::function<StoreResult<bool>(QSqlDatabase &)> &moveOffset);

    StoreStatus openConnection(const QString &path, const QList<StoreMigration> &migrations, bool readOnly);

    QString m_connection; // empty: closed
    QString m_path;
    int m_version = 0;
    bool m_readOnly = false;
};

} // namespace torchdeck
