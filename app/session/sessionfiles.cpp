// ClusterSession's operations on a run's files: its checkpoints (which are still there, deleting some) and its
// logs (read whole or their end, or followed as they grow).
#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"
#include "core/remotepath.h"
#include "core/runs/checkpointinventory.h"
#include "core/store/runstore.h"
#include "session/internal/sessioninternals.h"

namespace torchdeck {

namespace {
constexpr qsizetype chunkBytes = qsizetype(1024) * 1024; // a "data" event: well inside a frame of the agent's socket
constexpr int readDeadlineMs = 120000;

QString said(const QByteArray &err, const QString &fallback)
{
    const QString text = QString::fromUtf8(err.trimmed());
    return text.isEmpty() ? fallback : text;
}
} // namespace

StoreResult<QList<CheckpointRecord>> ClusterSession::checkpointsHere(const QString &runId) const
{
    auto checkpoints = m_store->checkpoints(runId);
    const auto run = m_store->run(runId);
    const auto jobs = m_store->jobs(runId);
    if (!checkpoints.ok() || !run.ok() || !jobs.ok())
        return StoreResult<QList<CheckpointRecord>>::failure(!checkpoints.ok() ? checkpoints.error
                                                                               : (!run.ok() ? run.error : jobs.error));
    const QString runCluster = run.value ? run.value->cluster : name();
    checkpoints.value = CheckpointPlaces(runCluster, jobs.value).on(name(), checkpoints.value);
    return checkpoints;
}

SessionOperation *ClusterSession::presentCheckpoints(const QString &runId)
{
    const auto checkpoints = checkpointsHere(runId);
    if (!checkpoints.ok())
        return SessionOperation::alreadyFailed(checkpoints.error, this);
    if (checkpoints.value.isEmpty())
        return SessionOperation::alreadyFinishedWith(agent::Checkpoints::Reply{}, this);
    auto *operation = new SessionOperation(this);
    runCommand(
        operation, presentCheckpointsCommand(checkpoints.value),
        [this, operation](int exitCode, const QByteArray &out, const QByteArray &err) {
            if (exitCode != 0)
                return operation->fail(tr("cannot list the checkpoints on %1: %2")
                                           .arg(name(), said(err, tr("exit code %1").arg(exitCode))));
            operation->finishWith(agent::Checkpoints::Reply{parsePresentCheckpoints(out)});
        },
        [this, operation](const QString &error) {
            operation->fail(tr("cannot list the checkpoints on %1: %2").arg(name(), error));
        });
    return operation;
}

SessionOperation *ClusterSession::deleteCheckpoints(const QString &runId, const QStringList &wanted)
{
    auto *operation = new SessionOperation(this);
    SessionOperation *listing = presentCheckpoints(runId);
    connect(listing, &SessionOperation::failed, operation, &SessionOperation::fail);
    onReply<agent::Checkpoints>(
        listing, operation, [this, operation, runId, wanted](const agent::Checkpoints::Reply &r) {
            const QStringList present = r.present;
            const auto records = checkpointsHere(runId);
            const RunSeries *runSeries = series(runId);
            const QList<CheckpointEntry> entries =
                markCheckpoints(records.value, present, runSeries ? *runSeries : RunSeries{});
            const CheckpointDeletion plan = planCheckpointDeletion(entries, wanted);
            if (!plan.error.isEmpty())
                return operation->fail(tr("run %1: %2").arg(runId.left(8), plan.error));
            runCommand(
                operation, deleteCheckpointsCommand(plan.paths),
                [this, operation, runId, plan, present](int exitCode, const QByteArray &, const QByteArray &err) {
                    if (exitCode != 0)
                        return operation->fail(tr("deleting on %1 failed: %2").arg(name(), said(err, QString())));
                    QStringList gone;
                    QStringList unrecorded;
                    for (const QString &path : plan.paths) {
                        if (!present.contains(path))
                            gone.append(path);
                        if (const StoreStatus forgotten = m_store->removeCheckpoint(runId, path); !forgotten.ok())
                            unrecorded.append(forgotten.error);
                    }
                    emit runUpdated(runId);
                    operation->finishWith(agent::DeleteCheckpoints::Reply{plan.paths, gone, unrecorded});
                },
                [this, operation](const QString &error) {
                    operation->fail(tr("deleting on %1 failed: %2").arg(name(), error));
                });
        });
    return operation;
}

SessionOperation *ClusterSession::readFile(const QString &path, int lastLines)
{
    auto *operation = new SessionOperation(this);
    const QString command = lastLines < 0
                                ? QStringLiteral("cat -- %1").arg(remotePathExpression(path))
                                : QStringLiteral("tail -n %1 -- %2").arg(lastLines).arg(remotePathExpression(path));
    runCommand(
        operation, command,
        [operation, path](int exitCode, const QByteArray &out, const QByteArray &err) {
            if (exitCode != 0)
                return operation->fail(tr("cannot read %1: %2").arg(path, said(err, tr("exit code %1").arg(exitCode))));
            for (qsizetype at = 0; at < out.size(); at += chunkBytes)
                operation->report(agent::DataEvent{at, out.mid(at, chunkBytes)});
            operation->finish();
        },
        [operation, path](const QString &error) { operation->fail(tr("cannot read %1: %2").arg(path, error)); },
        readDeadlineMs);
    return operation;
}

SessionOperation *ClusterSession::followFile(const QString &path, qint64 offset, qint64 lastBytes)
{
    auto *operation = new SessionOperation(this);
    whenConnected(
        operation,
        [this, operation, path, offset, lastBytes] {
            remote::RemoteTail *tail =
                lastBytes > 0 ? m_parts->connection.tailEnd(path, lastBytes) : m_parts->connection.tail(path, offset);
            connect(tail, &remote::RemoteTail::data, operation, [operation](qint64 at, const QByteArray &bytes) {
                for (qsizetype i = 0; i < bytes.size(); i += chunkBytes)
                    operation->report(agent::DataEvent{at + i, bytes.mid(i, chunkBytes)});
            });
            connect(tail, &remote::RemoteTail::reset, operation,
                    [operation](const QString &reason) { operation->report(agent::ResetEvent{reason}); });
            connect(tail, &remote::RemoteTail::failed, operation, [operation, path](const QString &error) {
                operation->fail(tr("following %1: %2").arg(path, error));
            });
            operation->setStopHandler([tail = QPointer<remote::RemoteTail>(tail), operation] {
                if (tail)
                    tail->stop();
                operation->finish();
            });
        },
        [operation](const QString &error) { operation->fail(error); });
    return operation;
}

} // namespace torchdeck
