// RunStore: sweeps, and which runs belong to them.
#include "core/coretr.h"
#include "core/store/keptlogs.h"
#include "core/store/runstore.h"
#include "core/store/sqlvalues.h"

#include <QSqlError>

namespace torchdeck {

StoreStatus RunStore::addSweep(const SweepRecord &sweep)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("INSERT INTO sweeps (id, cluster, name, created, axes_json) VALUES (?, ?, ?, ?, ?)"));
    const QDateTime created = sweep.created.isValid() ? sweep.created : QDateTime::currentDateTimeUtc();
    for (const QVariant &v : {sql::text(sweep.id), sql::text(sweep.cluster), sql::text(sweep.name), sql::msecs(created),
                              sql::text(sweep.axesJson)})
        q.addBindValue(v);
    return sql::exec(q, core::Tr::tr("cannot add sweep %1").arg(sweep.id));
}

StoreStatus RunStore::joinSweep(const QString &runId, const QString &sweepId, const QString &pointJson)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    // Only while the sweep is there: one deleted while its points were being sent leaves them runs of their own.
    q.prepare(QStringLiteral(
        "UPDATE runs SET sweep_id = ?, sweep_point = ? WHERE id = ? AND EXISTS (SELECT 1 FROM sweeps WHERE id = ?)"));
    for (const QVariant &v : {sql::text(sweepId), sql::text(pointJson), sql::text(runId), sql::text(sweepId)})
        q.addBindValue(v);
    return sql::execOnRow(
        q, core::Tr::tr("cannot add run %1 to sweep %2").arg(runId, sweepId),
        core::Tr::tr("run %1 or sweep %2 is not in the store (deleted meanwhile?)").arg(runId, sweepId));
}

StoreStatus RunStore::removeSweep(const QString &sweepId)
{
    if (!isOpen())
        return notOpen();
    sql::Transaction transaction(database());
    if (!transaction.begun())
        return StoreStatus::failure(transaction.beginError());
    QStringList runIds; // their kept logs go with them
    QSqlQuery members(database());
    members.prepare(QStringLiteral("SELECT id FROM runs WHERE sweep_id = ?"));
    members.addBindValue(sweepId);
    if (members.exec())
        while (members.next())
            runIds.append(members.value(0).toString());
    StoreStatus removed;
    for (const QString &sql :
         {QStringLiteral("DELETE FROM runs WHERE sweep_id = ?"), QStringLiteral("DELETE FROM sweeps WHERE id = ?")}) {
        QSqlQuery q(database());
        q.prepare(sql);
        q.addBindValue(sweepId);
        removed = sql::exec(q, core::Tr::tr("cannot remove sweep %1").arg(sweepId));
        if (!removed.ok())
            break;
    }
    const StoreStatus committed = sql::commit(transaction, removed, sweepId);
    if (committed.ok())
        for (const QString &runId : std::as_const(runIds))
            removeKeptLogs(m_path, runId);
    return committed;
}

StoreResult<QList<SweepRecord>> RunStore::sweeps() const
{
    using Result = StoreResult<QList<SweepRecord>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlQuery q(database());
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT id, cluster, name, created, axes_json FROM sweeps ORDER BY created DESC, id")))
        return Result::failure(sql::error(core::Tr::tr("cannot list sweeps"), q));
    Result result;
    while (q.next()) {
        result.value.append({q.value(0).toString(), q.value(1).toString(), q.value(2).toString(),
                             sql::toDateTime(q.value(3)), q.value(4).toString()});
    }
    return result;
}

StoreResult<QList<SweepMember>> RunStore::sweepMembers(const QString &sweepId) const
{
    using Result = StoreResult<QList<SweepMember>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlQuery q(database());
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT id, sweep_point FROM runs WHERE sweep_id = ? ORDER BY created, key"));
    q.addBindValue(sweepId);
    if (!q.exec())
        return Result::failure(sql::error(core::Tr::tr("cannot read the runs of sweep %1").arg(sweepId), q));
    Result result;
    while (q.next())
        result.value.append({q.value(0).toString(), q.value(1).toString()});
    return result;
}

} // namespace torchdeck
