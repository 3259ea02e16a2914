#pragma once

#include "core/metrics/runseries.h"
#include "core/profiles/clusterprofile.h"
#include "core/scheduler/jobinfo.h"
#include "core/store/runrecord.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>

namespace torchdeck {
class RunStore;
}

namespace torchdeck::remote {

class Connection;

// Brings the stored runs of one cluster up to date: the state of every unfinished job by ONE scheduler
// poll, the new lines of each of their metrics files from the stored offset (events and offset saved
// together), checkpoints, and the run's progress. The series of the runs it saw stay in memory, so a
// front redraws from series() without reading the store again.
class RunTracker : public QObject {
    Q_OBJECT
public:
    RunTracker(Connection *connection, ClusterProfile profile, RunStore *store, QObject *parent = nullptr);

    // One pass over these runs (all of this cluster's unfinished runs when empty). Ignored while one runs.
    void refresh(const QStringList &runIds = {});
    // Restart runs whose job ended to be requeued (wall time, preemption, the trainer's exit 75) as a new
    // attempt from the latest checkpoint; off by default. See restartdecision.h.
    void setAutoRestart(bool enabled) { m_autoRestart = enabled; }
    bool isRefreshing() const { return m_outstanding > 0; }
    bool isRestarting() const { return !m_restarting.isEmpty(); } // a restart is being submitted
    const RunSeries *series(const QString &runId);

signals:
    void metricsArrived(const QString &runId, int attempt, const QList<torchdeck::MetricEvent> &events);
    void runUpdated(const QString &runId);
    void refreshed(const QString &problem); // empty: all went well
    void restarted(const QString &runId, const QString &jobId, const QString &reason);
    void restartFailed(const QString &runId, const QString &error);
    void failed(const QString &error); // the store broke

private:
    void pollJobs();
    void jobsPolled(const torchdeck::JobListResult &result);
    void cancelWaitingInVain(); // attempts of a chain (submit --chain) whose turn can no longer come
    void cancelNext(QStringList ids);
    void readMetrics(const JobRecord &job);
    void metricsRead(const JobRecord &job, const QByteArray &bytes);
    void settleRun(const QString &runId);
    void finishStep();
    void considerRestart(const RunRecord &run, const QList<JobRecord> &jobs);
    void note(const QString &problem);

    QPointer<Connection> m_connection;
    ClusterProfile m_profile;
    RunStore *m_store;
    QHash<QString, RunSeries> m_series;
    QStringList m_runs;               // of this pass
    QList<JobRecord> m_jobs;          // unfinished jobs of this pass, as stored before it
    QHash<QString, JobInfo> m_polled; // what this pass's poll said, by job id
    int m_outstanding = 0;
    QStringList m_problems;
    bool m_autoRestart = false;
    QSet<QString> m_restarting; // runs whose next attempt is being submitted
};

} // namespace torchdeck::remote
