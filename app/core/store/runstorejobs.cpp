// RunStore: the jobs of a run and their tail offsets.
#include "core/coretr.h"
#include "core/store/runstore.h"
#include "core/store/sqlvalues.h"

namespace torchdeck {

namespace {

constexpr auto kJobColumns =
    "j.run_id, j.attempt, j.job_id, j.submitted, j.state, j.exit_code, j.resume_from, "
    "j.stdout_path, j.stderr_path, j.metrics_path, j.stdout_offset, j.stderr_offset, "
    "j.metrics_offset, j.scheduler_state, j.reason, j.start_estimate, j.nodes, j.elapsed_s, j.cluster, j.origin";

JobRecord readJob(const QSqlQuery &q)
{
    JobRecord j;
    j.runId = q.value(0).toString();
    j.attempt = q.value(1).toInt();
    j.jobId = q.value(2).toString();
    j.submitted = sql::toDateTime(q.value(3));
    j.state = q.value(4).toString();
    j.exitCode = q.value(5).isNull() ? -1 : q.value(5).toInt();
    j.resumeFrom = q.value(6).toString();
    j.stdoutPath = q.value(7).toString();
    j.stderrPath = q.value(8).toString();
    j.metricsPath = q.value(9).toString();
    j.offsets.stdoutOffset = q.value(10).toLongLong();
    j.offsets.stderrOffset = q.value(11).toLongLong();
    j.offsets.metricsOffset = q.value(12).toLongLong();
    j.scheduling.state = q.value(13).toString();
    j.scheduling.reason = q.value(14).toString();
    j.scheduling.startEstimate = sql::toDateTime(q.value(15));
    j.scheduling.nodes = q.value(16).toString();
    j.scheduling.elapsedSeconds = q.value(17).isNull() ? -1 : q.value(17).toLongLong();
    j.cluster = q.value(18).toString();
    j.origin = q.value(19).toString();
    return j;
}

QVariant exitCode(int code)
{
    return code < 0 ? QVariant() : QVariant(code);
}

QVariant elapsed(qint64 seconds)
{
    return seconds < 0 ? QVariant() : QVariant(seconds);
}

StoreResult<QList<JobRecord>> readJobs(QSqlQuery &q, const QString &what)
{
    StoreResult<QList<JobRecord>> result;
    if (!q.exec())
        return StoreResult<QList<JobRecord>>::failure(sql::error(what, q));
    while (q.next())
        result.value.append(readJob(q));
    return result;
}

} // namespace

StoreStatus RunStore::saveJob(const JobRecord &job)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(
        QStringLiteral("INSERT OR REPLACE INTO jobs (run_id, attempt, job_id, submitted, state, exit_code, "
                       "resume_from, stdout_path, stderr_path, metrics_path, stdout_offset, stderr_offset, "
                       "metrics_offset, scheduler_state, reason, start_estimate, nodes, elapsed_s, cluster, origin) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const QVariant &v : {sql::text(job.runId),
                              QVariant(job.attempt),
                              sql::text(job.jobId),
                              sql::msecs(job.submitted),
                              sql::text(job.state),
                              exitCode(job.exitCode),
                              sql::text(job.resumeFrom),
                              sql::text(job.stdoutPath),
                              sql::text(job.stderrPath),
                              sql::text(job.metricsPath),
                              QVariant(job.offsets.stdoutOffset),
                              QVariant(job.offsets.stderrOffset),
                              QVariant(job.offsets.metricsOffset),
                              sql::text(job.scheduling.state),
                              sql::text(job.scheduling.reason),
                              sql::msecs(job.scheduling.startEstimate),
                              sql::text(job.scheduling.nodes),
                              elapsed(job.scheduling.elapsedSeconds),
                              sql::text(job.cluster),
                              sql::text(job.origin)})
        q.addBindValue(v);
    if (!q.exec())
        return StoreStatus::failure(
            sql::error(core::Tr::tr("cannot save job %1 of run %2").arg(job.jobId, job.runId), q));
    return {};
}

StoreStatus RunStore::updateJobState(const QString &runId, int attempt, const QString &state, int code)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("UPDATE jobs SET state = ?, exit_code = ? WHERE run_id = ? AND attempt = ?"));
    for (const QVariant &v : {sql::text(state), exitCode(code), sql::text(runId), QVariant(attempt)})
        q.addBindValue(v);
    return sql::execOnRow(q, core::Tr::tr("cannot update a job of run %1").arg(runId),
                          core::Tr::tr("run %1 has no attempt %2").arg(runId).arg(attempt));
}

StoreStatus RunStore::updateJobScheduling(const QString &runId, int attempt, const JobScheduling &scheduling)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("UPDATE jobs SET scheduler_state = ?, reason = ?, start_estimate = ?, nodes = ?, "
                             "elapsed_s = ? WHERE run_id = ? AND attempt = ?"));
    for (const QVariant &v :
         {sql::text(scheduling.state), sql::text(scheduling.reason), sql::msecs(scheduling.startEstimate),
          sql::text(scheduling.nodes), elapsed(scheduling.elapsedSeconds), sql::text(runId), QVariant(attempt)})
        q.addBindValue(v);
    return sql::execOnRow(q, core::Tr::tr("cannot update a job of run %1").arg(runId),
                          core::Tr::tr("run %1 has no attempt %2").arg(runId).arg(attempt));
}

StoreStatus RunStore::saveOffsets(const QString &runId, int attempt, const TailOffsets &offsets)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("UPDATE jobs SET stdout_offset = ?, stderr_offset = ?, metrics_offset = ? "
                             "WHERE run_id = ? AND attempt = ?"));
    for (const QVariant &v : {QVariant(offsets.stdoutOffset), QVariant(offsets.stderrOffset),
                              QVariant(offsets.metricsOffset), sql::text(runId), QVariant(attempt)})
        q.addBindValue(v);
    return sql::execOnRow(q, core::Tr::tr("cannot save tail offsets of run %1").arg(runId),
                          core::Tr::tr("run %1 has no attempt %2").arg(runId).arg(attempt));
}

StoreResult<QList<JobRecord>> RunStore::jobs(const QString &runId) const
{
    if (!isOpen())
        return StoreResult<QList<JobRecord>>::failure(notOpen().error);
    QSqlQuery q(database());
    q.prepare(QStringLiteral("SELECT %1 FROM jobs j WHERE j.run_id = ? ORDER BY j.attempt")
                  .arg(QLatin1StringView(kJobColumns)));
    q.addBindValue(runId);
    return readJobs(q, core::Tr::tr("cannot read the jobs of run %1").arg(runId));
}

StoreResult<std::optional<JobRecord>> RunStore::jobByJobId(const QString &cluster, const QString &jobId) const
{
    using Result = StoreResult<std::optional<JobRecord>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlQuery q(database());
    // Job ids repeat across clusters, and within one after a scheduler reset: the newest run wins. A job is on
    // its own cluster (a run continued elsewhere has jobs on two); one saved without it, on its run's.
    q.prepare(QStringLiteral("SELECT %1 FROM jobs j JOIN runs r ON r.id = j.run_id "
                             "WHERE j.job_id = ? AND (j.cluster = ? OR (j.cluster = '' AND r.cluster = ?)) "
                             "ORDER BY r.created DESC, j.attempt DESC LIMIT 1")
                  .arg(QLatin1StringView(kJobColumns)));
    q.addBindValue(jobId);
    q.addBindValue(cluster);
    q.addBindValue(cluster);
    const auto found = readJobs(q, core::Tr::tr("cannot look up job %1").arg(jobId));
    if (!found.ok())
        return Result::failure(found.error);
    if (found.value.isEmpty())
        return {};
    return {found.value.first(), {}};
}

StoreResult<QList<JobRecord>> RunStore::jobsInStates(const QStringList &states) const
{
    if (!isOpen())
        return StoreResult<QList<JobRecord>>::failure(notOpen().error);
    if (states.isEmpty())
        return {};
    QStringList marks(states.size(), QStringLiteral("?"));
    QSqlQuery q(database());
    q.prepare(QStringLiteral("SELECT %1 FROM jobs j WHERE j.state IN (%2) ORDER BY j.run_id, j.attempt")
                  .arg(QLatin1StringView(kJobColumns), marks.join(u',')));
    for (const QString &s : states)
        q.addBindValue(s);
    return readJobs(q, core::Tr::tr("cannot list jobs by state"));
}

} // namespace torchdeck
