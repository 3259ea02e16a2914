#include "session/runmover.h"

#include "client/sessionoperation.h"
#include "client/startplacement.h"
#include "core/agent/agentops.h"
#include "core/duration.h"
#include "core/privatefiles.h"
#include "core/runs/startestimate.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "session/clustersession.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QPointer>

Q_LOGGING_CATEGORY(lcMove, "torchdeck.agent.move")

namespace torchdeck {

struct RunMover::Move {
    QPointer<ClusterSession> from;
    RunRecord run;
    JobRecord job;                  // the restart that waits
    QStringList candidates;         // where it waits first, then the other clusters in the order the run named them
    QList<StartEstimate> estimates; // one per candidate asked so far
    QString to;
    QString why; // the estimates in words, for the notice
};

namespace {
// "torchdeck-sandbox in 55m, torchdeck-b now"
QString estimatesInWords(const QList<StartEstimate> &estimates)
{
    Placement placement;
    placement.asked = QDateTime::currentDateTimeUtc();
    placement.estimates = estimates;
    placement.chosen = estimates.value(soonestStart(estimates)).cluster;
    return placementWhy(placement).section(QStringLiteral(": "), 1);
}
} // namespace

RunMover::RunMover(RunStore *store, std::function<ClusterSession *(const QString &)> sessionOf, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_sessionOf(std::move(sessionOf))
{
}

void RunMover::consider(ClusterSession *from, const QString &runId, const QString &jobId)
{
    if (m_moving.contains(runId))
        return;
    const auto run = m_store->run(runId);
    const auto jobs = m_store->jobs(runId);
    if (!run.ok() || !run.value || !jobs.ok() || jobs.value.isEmpty() || jobs.value.constLast().jobId != jobId ||
        run.value->cluster != from->name())
        return; // no longer the run's waiting restart there
    auto move = std::make_shared<Move>();
    move->from = from;
    move->run = *run.value;
    move->job = jobs.value.constLast();
    if (move->job.cluster.isEmpty())
        move->job.cluster = from->name(); // a record from before jobs knew their cluster
    move->candidates = {from->name()};
    for (const StartEstimate &candidate : placementFromJson(run.value->placement).estimates) {
        if (candidate.cluster != from->name() && m_sessionOf(candidate.cluster))
            move->candidates.append(candidate.cluster);
    }
    if (move->candidates.size() < 2)
        return releaseOwnHold(from, move->run.id, move->job);
    m_moving.insert(runId);
    emit started(runId);
    qCInfo(lcMove).noquote() << QStringLiteral("run %1: job %2 has waited %3 on %4; asking %5")
                                    .arg(runId.left(8), jobId,
                                         formatDuration(
                                             double(move->job.submitted.secsTo(QDateTime::currentDateTimeUtc()))),
                                         from->name(), move->candidates.mid(1).join(u','));
    askNext(move);
}

void RunMover::askNext(std::shared_ptr<Move> move)
{
    const qsizetype next = move->estimates.size();
    if (next >= move->candidates.size())
        return decide(move);
    const QString cluster = move->candidates.at(next);
    const bool waitsThere = next == 0; // not a candidate to skip: it stays there unless another is sooner
    // Where it waits: the scheduler's own expected start of the job where it gave one, else its answer for the same
    // job sent anew. Not for a job a stopped move held: the scheduler plans no start for a held job, and the one it
    // shows is from before the hold.
    if (waitsThere && move->job.scheduling.startEstimate.isValid() && !QFileInfo::exists(heldMarker(move->job))) {
        move->estimates.append(
            StartEstimate{cluster, move->job.scheduling.startEstimate, tr("the waiting job's expected start"), false});
        return askNext(move);
    }
    ClusterSession *session = waitsThere ? move->from.data() : m_sessionOf(cluster);
    if (!session) {
        move->estimates.append(StartEstimate{
            cluster, {}, waitsThere ? tr("its session ended") : tr("no longer in your ssh config"), !waitsThere});
        return askNext(move);
    }
    SessionOperation *asking = session->estimateRestart(move->run.id, move->job.jobId);
    connect(asking, &SessionOperation::failed, this, [this, move, cluster, waitsThere](const QString &why) {
        move->estimates.append(StartEstimate{cluster, {}, why, !waitsThere});
        askNext(move);
    });
    onReply<agent::EstimateStart>(asking, this, [this, move, cluster](const agent::EstimateStart::Reply &reply) {
        move->estimates.append(startEstimateOf(cluster, reply));
        askNext(move);
    });
}

void RunMover::decide(std::shared_ptr<Move> move)
{
    const qsizetype soonest = soonestStart(move->estimates);
    const QString words = estimatesInWords(move->estimates);
    // Where it waits wins ties, and a cluster without an estimate never beats one with it.
    if (soonest <= 0 || !move->estimates.at(soonest).known()) {
        qCInfo(lcMove).noquote() << QStringLiteral("run %1 stays: %2").arg(move->run.id.left(8), words);
        if (move->from)
            releaseOwnHold(move->from, move->run.id, move->job); // an earlier move's, stopped with its agent
        return end(move);
    }
    move->to = move->estimates.at(soonest).cluster;
    qCInfo(lcMove).noquote() << QStringLiteral("run %1 moves to %2: %3").arg(move->run.id.left(8), move->to, words);
    move->why = words;
    hold(move);
}

void RunMover::hold(std::shared_ptr<Move> move)
{
    if (!move->from)
        return fail(move, tr("its cluster's session ended"));
    // Written before the hold: whatever stops this move, the hold is known to be the mover's and is lifted.
    if (const QString problem = markHeld(move->job, true); !problem.isEmpty())
        return fail(move, problem);
    // Held, it cannot start while its checkpoint is copied; a job that started meanwhile refuses the hold.
    SessionOperation *held = move->from->jobAction(SchedulerAction::Hold, move->run.id, move->job.jobId);
    connect(held, &SessionOperation::failed, this, [this, move](const QString &why) {
        fail(move, tr("job %1 could not be held (it may have started): %2").arg(move->job.jobId, why));
    });
    connect(held, &SessionOperation::finished, this, [this, move] { copy(move); });
}

void RunMover::copy(std::shared_ptr<Move> move)
{
    ClusterSession *target = m_sessionOf(move->to);
    if (!target)
        return fail(move, tr("%1 is no longer in your ssh config").arg(move->to));
    SessionOperation *continuing =
        target->continueRun(move->run.id, ResumeFrom::latest(), {}, m_sessionOf, move->job.jobId);
    connect(continuing, &SessionOperation::failed, this,
            [this, move](const QString &why) { fail(move, tr("continuing it on %1 failed: %2").arg(move->to, why)); });
    onReply<agent::Resume>(continuing, this,
                           [this, move](const agent::SubmitReply &reply) { cancelWaiting(move, reply.first.jobId); });
}

void RunMover::cancelWaiting(std::shared_ptr<Move> move, const QString &newJobId)
{
    const QString where = move->job.cluster.isEmpty() ? move->run.cluster : move->job.cluster;
    const QString moved =
        tr("moved to %1 as job %2 after waiting %3 (%4)")
            .arg(move->to, newJobId,
                 formatDuration(double(move->job.submitted.secsTo(QDateTime::currentDateTimeUtc()))), move->why);
    const auto told = [this, move, moved](const QString &problem) {
        const auto run = m_store->run(move->run.id);
        emit notice(moveNotice(run.ok() && run.value ? *run.value : move->run, move->job, true,
                               problem.isEmpty() ? moved : moved + QStringLiteral("; ") + problem),
                    move->from);
        end(move);
    };
    if (!move->from)
        return told(tr("job %1 on %2 stays held there; it is cancelled when the agent next starts")
                        .arg(move->job.jobId, where));
    cancelMoved(move->from, move->run.id, move->job, move->to, told);
}

void RunMover::cancelMoved(ClusterSession *where, const QString &runId, const JobRecord &job, const QString &to,
                           const std::function<void(const QString &)> &then)
{
    SessionOperation *cancelled = where->jobAction(SchedulerAction::Cancel, runId, job.jobId);
    const QString cluster = where->name();
    connect(cancelled, &SessionOperation::failed, this, [job, cluster, then](const QString &why) {
        then(tr("job %1 on %2 could not be cancelled and stays held there: %3").arg(job.jobId, cluster, why));
    });
    connect(cancelled, &SessionOperation::finished, this, [this, runId, job, to, then] {
        JobScheduling scheduling = job.scheduling;
        scheduling.state = QStringLiteral("CANCELLED");
        scheduling.reason = QStringLiteral("moved to %1").arg(to); // jobWhy says it as it is
        (void)m_store->updateJobScheduling(runId, job.attempt, scheduling);
        const StoreStatus stored = m_store->updateJobState(runId, job.attempt, jobStateName(JobState::Cancelled), -1);
        (void)markHeld(job, false);
        then(stored.ok() ? QString() : stored.error);
    });
}

void RunMover::cancelLeftBehind(const QString &runId, const QString &jobId, const QString &cluster)
{
    if (m_moving.contains(runId))
        return; // the move under way cancels it itself
    ClusterSession *where = m_sessionOf(cluster);
    const auto run = m_store->run(runId);
    const auto jobs = m_store->jobs(runId);
    if (!where || !run.ok() || !run.value || !jobs.ok())
        return;
    for (const JobRecord &job : jobs.value) {
        if (job.jobId != jobId || job.cluster != cluster || job.hasEnded())
            continue;
        const QString key = cluster + u' ' + jobId;
        if (m_cancelling.contains(key))
            continue;
        m_cancelling.insert(key);
        qCInfo(lcMove).noquote() << QStringLiteral("run %1 went on on %2: cancelling job %3 left on %4")
                                        .arg(runId.left(8), run.value->cluster, jobId, cluster);
        cancelMoved(where, runId, job, run.value->cluster, [this, key, runId](const QString &problem) {
            m_cancelling.remove(key); // a failed cancel is tried again (RunTracker::leftBehind)
            if (!problem.isEmpty())
                qCWarning(lcMove).noquote() << QStringLiteral("run %1: %2").arg(runId.left(8), problem);
        });
    }
}

void RunMover::fail(std::shared_ptr<Move> move, const QString &why)
{
    qCInfo(lcMove).noquote() << QStringLiteral("run %1 not moved: %2").arg(move->run.id.left(8), why);
    const auto told = [this, move, why](const QString &more) {
        emit notice(moveNotice(move->run, move->job, false, more.isEmpty() ? why : why + QStringLiteral("; ") + more),
                    move->from);
        end(move);
    };
    if (!move->from)
        return told({});
    // A failure after the other cluster's sbatch (its record failed) has sent the next attempt all the same: the job
    // that waited is cancelled as after a move, never released to run beside it.
    const auto jobs = m_store->jobs(move->run.id);
    const bool replaced = jobs.ok() && std::any_of(jobs.value.cbegin(), jobs.value.cend(), [&move](const JobRecord &j) {
                              return j.attempt > move->job.attempt;
                          });
    if (replaced) {
        const QString to = move->to;
        return cancelMoved(move->from, move->run.id, move->job, to, [told, to](const QString &problem) {
            told(problem.isEmpty() ? tr("its next attempt was sent to %1 all the same: the job that waited is "
                                        "cancelled")
                                         .arg(to)
                                   : problem);
        });
    }
    if (!QFileInfo::exists(heldMarker(move->job)))
        return told({});
    SessionOperation *released = move->from->jobAction(SchedulerAction::Release, move->run.id, move->job.jobId);
    connect(released, &SessionOperation::failed, this,
            [move, told](const QString &error) { told(tr("job %1 stays held: %2").arg(move->job.jobId, error)); });
    connect(released, &SessionOperation::finished, this, [this, move, told] {
        (void)markHeld(move->job, false);
        told(tr("job %1 was released and waits where it was").arg(move->job.jobId));
    });
}

void RunMover::releaseOwnHold(ClusterSession *where, const QString &runId, const JobRecord &job)
{
    if (!QFileInfo::exists(heldMarker(job)))
        return;
    qCInfo(lcMove).noquote()
        << QStringLiteral("run %1: releasing job %2, held by a move that did not happen").arg(runId.left(8), job.jobId);
    SessionOperation *released = where->jobAction(SchedulerAction::Release, runId, job.jobId);
    connect(released, &SessionOperation::finished, this, [this, job] { (void)markHeld(job, false); });
}

QString RunMover::heldMarker(const JobRecord &job) const
{
    return QFileInfo(m_store->path())
        .dir()
        .filePath(
            QStringLiteral("moving/%1/held-%2-%3").arg(job.runId, QString(job.cluster).replace(u'/', u'_'), job.jobId));
}

QString RunMover::markHeld(const JobRecord &job, bool held) const
{
    const QString marker = heldMarker(job);
    if (!held) {
        QFile::remove(marker);
        return {};
    }
    if (const QString problem = makePrivateDirectory(QFileInfo(marker).path()); !problem.isEmpty())
        return problem;
    QFile file(marker);
    if (!file.open(QIODevice::WriteOnly))
        return tr("cannot note the hold in %1: %2").arg(marker, file.errorString());
    return {};
}

void RunMover::end(std::shared_ptr<Move> move)
{
    m_moving.remove(move->run.id);
    emit settled(move->run.id);
}

} // namespace torchdeck
