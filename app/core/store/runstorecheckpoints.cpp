// RunStore: the checkpoints of a run, with validity and the best one marked.
#include "core/coretr.h"
#include "core/store/runstore.h"
#include "core/store/sqlvalues.h"

#include <QSqlError>

namespace torchdeck {

namespace {
constexpr QStringView supersededPrefix = u"superseded-a";
}

QStringList submittedJobIds(const QList<JobRecord> &jobs)
{
    QStringList ids;
    for (const JobRecord &job : jobs) {
        if (!job.jobId.isEmpty())
            ids.append(job.jobId);
    }
    return ids;
}

QString checkpointNamed(const QList<CheckpointRecord> &checkpoints, const QString &fileOrStep)
{
    QString live;
    QString aside;
    for (const CheckpointRecord &checkpoint : checkpoints) {
        if (checkpoint.path.section(u'/', -1) == fileOrStep || QString::number(checkpoint.step) == fileOrStep)
            (isSupersededCheckpoint(checkpoint.path) ? aside : live) = checkpoint.path;
    }
    return live.isEmpty() ? aside : live;
}

QString supersededCheckpointDirectory(const QString &liveDirectory, int attempt)
{
    return liveDirectory + u'/' + supersededPrefix + QString::number(attempt);
}

bool isSupersededCheckpoint(const QString &path)
{
    return path.section(u'/', -2, -2).startsWith(supersededPrefix);
}

StoreStatus RunStore::saveCheckpoint(const CheckpointRecord &c)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("INSERT OR REPLACE INTO checkpoints (run_id, path, attempt, epoch, step, bytes, time, "
                             "valid, best, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const QVariant &v : {sql::text(c.runId), sql::text(c.path), QVariant(c.attempt), sql::count(c.epoch),
                              sql::count(c.step), sql::count(c.bytes), sql::real(c.time), QVariant(c.valid ? 1 : 0),
                              QVariant(c.best ? 1 : 0), sql::text(c.reason)})
        q.addBindValue(v);
    if (!q.exec())
        return StoreStatus::failure(sql::error(core::Tr::tr("cannot save checkpoint %1").arg(c.path), q));
    return {};
}

StoreStatus RunStore::setBestCheckpoint(const QString &runId, const QString &path)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("UPDATE checkpoints SET best = (path = ?) WHERE run_id = ?"));
    q.addBindValue(path);
    q.addBindValue(runId);
    if (!q.exec())
        return StoreStatus::failure(
            sql::error(core::Tr::tr("cannot mark the best checkpoint of run %1").arg(runId), q));
    return {};
}

StoreStatus RunStore::removeCheckpoint(const QString &runId, const QString &path)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("DELETE FROM checkpoints WHERE run_id = ? AND path = ?"));
    q.addBindValue(runId);
    q.addBindValue(path);
    if (!q.exec())
        return StoreStatus::failure(sql::error(core::Tr::tr("cannot remove checkpoint %1").arg(path), q));
    return {};
}

StoreResult<QList<CheckpointRecord>> RunStore::checkpoints(const QString &runId) const
{
    using Result = StoreResult<QList<CheckpointRecord>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlQuery q(database());
    q.prepare(QStringLiteral("SELECT run_id, path, attempt, epoch, step, bytes, time, valid, best, reason "
                             "FROM checkpoints WHERE run_id = ? ORDER BY step, time, path"));
    q.addBindValue(runId);
    if (!q.exec())
        return Result::failure(sql::error(core::Tr::tr("cannot read the checkpoints of run %1").arg(runId), q));
    Result result;
    while (q.next()) {
        CheckpointRecord c;
        c.runId = q.value(0).toString();
        c.path = q.value(1).toString();
        c.attempt = q.value(2).toInt();
        c.epoch = sql::toCount(q.value(3));
        c.step = sql::toCount(q.value(4));
        c.bytes = sql::toCount(q.value(5));
        c.time = sql::toReal(q.value(6));
        c.valid = q.value(7).toInt() != 0;
        c.best = q.value(8).toInt() != 0;
        c.reason = q.value(9).toString();
        result.value.append(c);
    }
    return result;
}

} // namespace torchdeck
