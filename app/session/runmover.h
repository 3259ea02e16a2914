#pragma once

#include "core/runs/runnotice.h"
#include "core/store/runrecord.h"

#include <QObject>
#include <QSet>
#include <functional>

namespace torchdeck {

class ClusterSession;
class RunStore;
struct StartEstimate;

// The agent's `--move-after`: a restart that has waited its run's time on its cluster (RunTracker::moveDue) goes to
// another of the run's candidate clusters (its placement) where the scheduler would start it sooner. The waiting job
// is held first, so it cannot start while the checkpoint is copied; the next attempt is sent there from the copy
// (ClusterSession::continueRun); only then is the held job cancelled. A move that fails releases the job, which
// waits where it was. One move per run at a time; the user is told either way.
class RunMover : public QObject {
    Q_OBJECT
public:
    RunMover(RunStore *store, std::function<ClusterSession *(const QString &)> sessionOf, QObject *parent = nullptr);

    void consider(ClusterSession *from, const QString &runId, const QString &jobId);
    bool isMoving() const { return !m_moving.isEmpty(); }
    // A moved run's job still waiting (held) on `cluster`, its agent stopped before cancelling it: cancelled now.
    void cancelLeftBehind(const QString &runId, const QString &jobId, const QString &cluster);

signals:
    void started(const QString &runId);
    void settled(const QString &runId); // moved, stayed or failed: the move is over
    void notice(const torchdeck::RunNotice &notice, ClusterSession *where);

private:
    struct Move;
    void askNext(std::shared_ptr<Move> move);
    void decide(std::shared_ptr<Move> move);
    void hold(std::shared_ptr<Move> move);
    void copy(std::shared_ptr<Move> move);
    void cancelWaiting(std::shared_ptr<Move> move, const QString &newJobId);
    void fail(std::shared_ptr<Move> move, const QString &why);
    // A hold of the mover's is noted in the agent's data folder (moving/RUN/held-CLUSTER-JOB) before it is asked
    // for: a move that does not happen, or stopped with its agent, releases it.
    void releaseOwnHold(ClusterSession *where, const QString &runId, const JobRecord &job);
    QString heldMarker(const JobRecord &job) const;
    QString markHeld(const JobRecord &job, bool held) const; // the problem, empty when done
    void end(std::shared_ptr<Move> move);
    // The job that waited there, cancelled (its move done): settled in the store, as the run's new cluster follows
    // the run from now on. `then(problem)`, empty when all went well.
    void cancelMoved(ClusterSession *where, const QString &runId, const JobRecord &job, const QString &to,
                     const std::function<void(const QString &)> &then);

    RunStore *m_store;
    std::function<ClusterSession *(const QString &)> m_sessionOf;
    QSet<QString> m_moving;     // runs
    QSet<QString> m_cancelling; // jobs left behind being cancelled: "cluster job"
};

} // namespace torchdeck
