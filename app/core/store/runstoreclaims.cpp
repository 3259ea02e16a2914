// RunStore: claims on attempts, so any number of fronts on one store submit each attempt once.
#include "core/coretr.h"
#include "core/store/claimowner.h"
#include "core/store/runstore.h"
#include "core/store/sqlvalues.h"

#include <QSqlError>

namespace torchdeck {

StoreResult<AttemptClaim> RunStore::claimAttempt(const RunRecord &run, const JobRecord &job, const QString &owner,
                                                 qint64 leaseMs, const QString &request)
{
    using Result = StoreResult<AttemptClaim>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    const QSqlDatabase db = database();
    sql::Transaction transaction(db);
    if (!transaction.begun())
        return Result::failure(transaction.beginError());
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString what = core::Tr::tr("cannot claim attempt %1 of run %2").arg(job.attempt).arg(run.id);
    // A write first, so this transaction holds the store's write lock before it reads what others wrote. The run is
    // its new attempt's cluster's from now on (`resume --on`, a move): that cluster's tracker takes the claim over if
    // this front stops, and the agent that starts next opens that cluster for it.
    QSqlQuery touch(db);
    touch.prepare(QStringLiteral("UPDATE runs SET cluster = CASE WHEN ? = '' THEN cluster ELSE ? END WHERE id = ?"));
    for (const QVariant &v : {sql::text(job.cluster), sql::text(job.cluster), sql::text(run.id)})
        touch.addBindValue(v);
    if (const StoreStatus touched = sql::exec(touch, what); !touched.ok())
        return Result::failure(touched.error);
    if (touch.numRowsAffected() == 0) {
        RunRecord submitting = run;
        submitting.state = QStringLiteral("submitting");
        if (const StoreStatus added = addRun(submitting); !added.ok())
            return Result::failure(added.error);
    }
    QSqlQuery held(db);
    held.prepare(QStringLiteral("SELECT job_id, claim_owner, claim_until FROM jobs WHERE run_id = ? AND attempt = ?"));
    held.addBindValue(run.id);
    held.addBindValue(job.attempt);
    if (const StoreStatus read = sql::exec(held, what); !read.ok())
        return Result::failure(read.error);
    AttemptClaim claim;
    if (held.next()) {
        const QString jobId = held.value(0).toString();
        const QString holder = held.value(1).toString();
        const qint64 until = held.value(2).toLongLong();
        held.finish();
        if (!jobId.isEmpty())
            return {{AttemptClaim::Outcome::AlreadySubmitted, holder, jobId}, {}};
        // A holder on this machine that no longer runs is gone for good: its lease need not run out.
        if (holder != owner && until > now && !claimHolderGone(holder))
            return {{AttemptClaim::Outcome::HeldByAnother, holder, {}}, {}};
        // An expired claim of this same owner is taken over too: its launcher is gone (a stopped submission, a
        // task whose record failed) and may have submitted, so the next one looks before it sends.
        claim.outcome =
            holder == owner && until > now ? AttemptClaim::Outcome::Claimed : AttemptClaim::Outcome::TakenOver;
        claim.owner = holder;
        QSqlQuery renew(db);
        renew.prepare(
            QStringLiteral("UPDATE jobs SET claim_owner = ?, claim_until = ? WHERE run_id = ? AND attempt = ?"));
        for (const QVariant &v : {sql::text(owner), QVariant(now + leaseMs), sql::text(run.id), QVariant(job.attempt)})
            renew.addBindValue(v);
        if (const StoreStatus renewed = sql::exec(renew, what); !renewed.ok())
            return Result::failure(renewed.error);
    } else {
        held.finish();
        QSqlQuery insert(db);
        insert.prepare(
            QStringLiteral("INSERT INTO jobs (run_id, attempt, job_id, state, resume_from, stdout_path, "
                           "stderr_path, metrics_path, claim_owner, claim_until, claim_request, cluster, origin) "
                           "VALUES (?, ?, '', 'submitting', ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
        for (const QVariant &v :
             {sql::text(run.id), QVariant(job.attempt), sql::text(job.resumeFrom), sql::text(job.stdoutPath),
              sql::text(job.stderrPath), sql::text(job.metricsPath), sql::text(owner), QVariant(now + leaseMs),
              sql::text(request), sql::text(job.cluster), sql::text(job.origin)})
            insert.addBindValue(v);
        if (const StoreStatus inserted = sql::exec(insert, what); !inserted.ok())
            return Result::failure(inserted.error);
    }
    if (!transaction.commit())
        return Result::failure(QStringLiteral("%1: %2").arg(what, transaction.error()));
    return {claim, {}};
}

StoreStatus RunStore::recordClaimedJob(const RunRecord &run, const JobRecord &job, const QString &owner)
{
    if (!isOpen())
        return notOpen();
    const QSqlDatabase db = database();
    sql::Transaction transaction(db);
    if (!transaction.begun())
        return StoreStatus::failure(transaction.beginError());
    QSqlQuery q(db);
    q.prepare(QStringLiteral("UPDATE jobs SET job_id = ?, submitted = ?, state = ?, exit_code = NULL, resume_from = ?, "
                             "stdout_path = ?, stderr_path = ?, metrics_path = ?, claim_owner = '', "
                             "claim_until = NULL, claim_request = '' "
                             "WHERE run_id = ? AND attempt = ? AND claim_owner = ? AND job_id = ''"));
    for (const QVariant &v : {sql::text(job.jobId), sql::msecs(job.submitted), sql::text(job.state),
                              sql::text(job.resumeFrom), sql::text(job.stdoutPath), sql::text(job.stderrPath),
                              sql::text(job.metricsPath), sql::text(run.id), QVariant(job.attempt), sql::text(owner)})
        q.addBindValue(v);
    StoreStatus saved = sql::execOnRow(
        q, core::Tr::tr("cannot record job %1 of run %2").arg(job.jobId, run.id),
        core::Tr::tr("attempt %1 of run %2 is no longer claimed by this torchdeck").arg(job.attempt).arg(run.id));
    if (saved.ok())
        saved = updateRun(run);
    return sql::commit(transaction, saved, run.id);
}

StoreStatus RunStore::releaseClaim(const QString &runId, int attempt, const QString &owner)
{
    if (!isOpen())
        return notOpen();
    const QSqlDatabase db = database();
    sql::Transaction transaction(db);
    if (!transaction.begun())
        return StoreStatus::failure(transaction.beginError());
    const QString what = core::Tr::tr("cannot release attempt %1 of run %2").arg(attempt).arg(runId);
    QSqlQuery job(db);
    job.prepare(
        QStringLiteral("DELETE FROM jobs WHERE run_id = ? AND attempt = ? AND claim_owner = ? AND job_id = ''"));
    for (const QVariant &v : {sql::text(runId), QVariant(attempt), sql::text(owner)})
        job.addBindValue(v);
    StoreStatus released = sql::exec(job, what);
    if (released.ok()) {
        // A run made by the claim goes with it: nothing of it was submitted.
        QSqlQuery run(db);
        run.prepare(
            QStringLiteral("DELETE FROM runs WHERE id = ? AND NOT EXISTS (SELECT 1 FROM jobs WHERE run_id = ?)"));
        run.addBindValue(runId);
        run.addBindValue(runId);
        released = sql::exec(run, what);
    }
    if (released.ok()) {
        // A run that stays goes back to the cluster of its latest job (the claim was for another).
        QSqlQuery back(db);
        back.prepare(QStringLiteral("UPDATE runs SET cluster = (SELECT j.cluster FROM jobs j WHERE j.run_id = ? AND "
                                    "j.cluster <> '' ORDER BY j.attempt DESC LIMIT 1) WHERE id = ? AND EXISTS "
                                    "(SELECT 1 FROM jobs j WHERE j.run_id = ? AND j.cluster <> '')"));
        for (int i = 0; i < 3; ++i)
            back.addBindValue(runId);
        released = sql::exec(back, what);
    }
    if (released.ok() && !transaction.commit())
        released = StoreStatus::failure(QStringLiteral("%1: %2").arg(what, transaction.error()));
    return released;
}

StoreResult<QList<ExpiredClaim>> RunStore::expiredClaims(const QString &cluster) const
{
    using Result = StoreResult<QList<ExpiredClaim>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlQuery q(database());
    q.prepare(QStringLiteral("SELECT j.run_id, j.attempt, j.claim_owner, j.claim_request, j.claim_until FROM jobs j "
                             "JOIN runs r ON r.id = j.run_id "
                             "WHERE (j.cluster = ? OR (j.cluster = '' AND r.cluster = ?)) AND j.job_id = '' "
                             "ORDER BY j.run_id, j.attempt"));
    q.addBindValue(cluster);
    q.addBindValue(cluster);
    if (!q.exec())
        return Result::failure(sql::error(core::Tr::tr("cannot read the claims of %1").arg(cluster), q));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    Result result;
    while (q.next()) {
        const QString owner = q.value(2).toString();
        if (q.value(4).toLongLong() < now || claimHolderGone(owner))
            result.value.append({q.value(0).toString(), q.value(1).toInt(), owner, q.value(3).toString()});
    }
    return result;
}

} // namespace torchdeck
