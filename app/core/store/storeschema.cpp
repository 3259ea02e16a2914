#include "core/store/storeschema.h"

#include "core/coretr.h"
#include "core/store/storelog.h"

#include <QSqlError>
#include <QSqlQuery>
#include <algorithm>

namespace torchdeck {

QList<StoreMigration> storeMigrations()
{
    return {
        {1,
         {
             QStringLiteral("CREATE TABLE schema_version (version INTEGER NOT NULL)"),
             QStringLiteral("INSERT INTO schema_version (version) VALUES (0)"),
             // Times: created/updated/submitted in ms since the epoch (UTC); metrics and checkpoint times
             // in Unix seconds as the trainer writes them. NULL: unknown.
             QStringLiteral("CREATE TABLE runs ("
                            " key INTEGER PRIMARY KEY,"
                            " id TEXT NOT NULL UNIQUE,"
                            " name TEXT NOT NULL,"
                            " cluster TEXT NOT NULL,"
                            " created INTEGER NOT NULL,"
                            " updated INTEGER NOT NULL,"
                            " state TEXT NOT NULL DEFAULT '',"
                            " spec_json TEXT NOT NULL DEFAULT '',"
                            " script TEXT NOT NULL DEFAULT '',"
                            " epochs_done INTEGER NOT NULL DEFAULT 0,"
                            " epochs_total INTEGER,"
                            " last_loss REAL,"
                            " eta_seconds REAL,"
                            " message TEXT NOT NULL DEFAULT '')"),
             QStringLiteral("CREATE INDEX runs_by_created ON runs (created DESC)"),
             QStringLiteral("CREATE TABLE jobs ("
                            " run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                            " attempt INTEGER NOT NULL,"
                            " job_id TEXT NOT NULL,"
                            " submitted INTEGER,"
                            " state TEXT NOT NULL DEFAULT '',"
                            " exit_code INTEGER,"
                            " resume_from TEXT NOT NULL DEFAULT '',"
                            " stdout_path TEXT NOT NULL DEFAULT '',"
                            " stderr_path TEXT NOT NULL DEFAULT '',"
                            " metrics_path TEXT NOT NULL DEFAULT '',"
                            " stdout_offset INTEGER NOT NULL DEFAULT 0,"
                            " stderr_offset INTEGER NOT NULL DEFAULT 0,"
                            " metrics_offset INTEGER NOT NULL DEFAULT 0,"
                            " PRIMARY KEY (run_id, attempt))"),
             QStringLiteral("CREATE INDEX jobs_by_job_id ON jobs (job_id)"),
             // One row per cached event; keyed by the run's integer key to keep a million-step run small.
             // extra: JSON of the rare fields of start, checkpoint and stop events.
             QStringLiteral("CREATE TABLE metrics ("
                            " run_key INTEGER NOT NULL REFERENCES runs (key) ON DELETE CASCADE,"
                            " seq INTEGER NOT NULL,"
                            " attempt INTEGER NOT NULL,"
                            " event INTEGER NOT NULL,"
                            " time REAL, epoch INTEGER, step INTEGER,"
                            " epochs INTEGER, epoch_step INTEGER, steps_per_epoch INTEGER,"
                            " loss REAL, lr REAL, samples_per_s REAL,"
                            " val_loss REAL, val_accuracy REAL, seconds REAL,"
                            " extra TEXT,"
                            " PRIMARY KEY (run_key, seq)) WITHOUT ROWID"),
             QStringLiteral("CREATE TABLE checkpoints ("
                            " run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                            " path TEXT NOT NULL,"
                            " attempt INTEGER NOT NULL DEFAULT 0,"
                            " epoch INTEGER, step INTEGER, bytes INTEGER, time REAL,"
                            " valid INTEGER NOT NULL DEFAULT 1,"
                            " best INTEGER NOT NULL DEFAULT 0,"
                            " reason TEXT NOT NULL DEFAULT '',"
                            " PRIMARY KEY (run_id, path))"),
         }},
        {2,
         {
             // The automatic restart from outside, switchable per run (on by default).
             QStringLiteral("ALTER TABLE runs ADD COLUMN auto_restart INTEGER NOT NULL DEFAULT 1"),
         }},
        {3,
         {
             // Claims on attempts (RunStore::claimAttempt): a job row with no job id yet, its owner, the end of
             // its lease (ms since the epoch) and the request to submit (JSON).
             QStringLiteral("ALTER TABLE jobs ADD COLUMN claim_owner TEXT NOT NULL DEFAULT ''"),
             QStringLiteral("ALTER TABLE jobs ADD COLUMN claim_until INTEGER"),
             QStringLiteral("ALTER TABLE jobs ADD COLUMN claim_request TEXT NOT NULL DEFAULT ''"),
         }},
        {4,
         {
             // Where each event was read (MetricSource), so log values give way to a file's for the same series.
             QStringLiteral("ALTER TABLE metrics ADD COLUMN source INTEGER NOT NULL DEFAULT 0"),
             // Before, a custom command's events came from its log unless its metrics file had data (which
             // then won outright): those runs' events are the log's.
             QStringLiteral("UPDATE metrics SET source = 1 WHERE run_key IN (SELECT r.key FROM runs r WHERE "
                            "r.spec_json LIKE '%\"commandKind\":\"custom\"%' AND NOT EXISTS (SELECT 1 FROM jobs j "
                            "WHERE j.run_id = r.id AND j.metrics_offset > 0))"),
             // Files a custom command's own logger writes under its run directory (TensorBoard event files,
             // Lightning's metrics.csv), each read from where the last reader stopped: `offset` in bytes, or
             // in rows for a CSV (rewritten whole as columns appear); `size` as last read.
             QStringLiteral("CREATE TABLE logger_files ("
                            " run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                            " path TEXT NOT NULL,"
                            " attempt INTEGER NOT NULL,"
                            " offset INTEGER NOT NULL DEFAULT 0,"
                            " size INTEGER NOT NULL DEFAULT 0,"
                            " PRIMARY KEY (run_id, path))"),
         }},
        {5,
         {
             // What the scheduler last said of each job beyond its state (JobScheduling): its own word for the
             // state, its reason, the expected start of a waiting job (ms since the epoch) and its nodes.
             QStringLiteral("ALTER TABLE jobs ADD COLUMN scheduler_state TEXT NOT NULL DEFAULT ''"),
             QStringLiteral("ALTER TABLE jobs ADD COLUMN reason TEXT NOT NULL DEFAULT ''"),
             QStringLiteral("ALTER TABLE jobs ADD COLUMN start_estimate INTEGER"),
             QStringLiteral("ALTER TABLE jobs ADD COLUMN nodes TEXT NOT NULL DEFAULT ''"),
         }},
        {6,
         {
             // Sweeps: many runs submitted as one grid (`torchdeck sweep`); what was varied, as JSON
             // ([{"name", "values"}]). A run of a sweep knows it, and its point's values ({"name": "value"}).
             QStringLiteral("CREATE TABLE sweeps ("
                            " id TEXT PRIMARY KEY,"
                            " cluster TEXT NOT NULL,"
                            " name TEXT NOT NULL,"
                            " created INTEGER NOT NULL,"
                            " axes_json TEXT NOT NULL)"),
             QStringLiteral("ALTER TABLE runs ADD COLUMN sweep_id TEXT"),
             QStringLiteral("ALTER TABLE runs ADD COLUMN sweep_point TEXT NOT NULL DEFAULT ''"),
             QStringLiteral("CREATE INDEX runs_sweep ON runs (sweep_id)"),
         }},
        {7,
         {
             // How long an ended job ran, as the scheduler said (JobScheduling::elapsedSeconds): a sweep's
             // point without epoch times is timed by it. NULL: not ended or not said.
             QStringLiteral("ALTER TABLE jobs ADD COLUMN elapsed_s INTEGER"),
         }},
        {8,
         {
             // What the user wrote of a run (`torchdeck note`) and its tags (`torchdeck tag`), space-separated.
             QStringLiteral("ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT ''"),
             QStringLiteral("ALTER TABLE runs ADD COLUMN tags TEXT NOT NULL DEFAULT ''"),
         }},
        {9,
         {
             // Where a run of several candidate clusters went (`torchdeck submit A,B`): each one's start estimate
             // and the one chosen, as JSON (core/runs/startestimate.h); empty for a run of one named cluster.
             QStringLiteral("ALTER TABLE runs ADD COLUMN placement TEXT NOT NULL DEFAULT ''"),
             // The cluster of each job: a run continued on another cluster (`resume --on`) has jobs on both, and
             // job ids repeat across clusters. Before, every job was on its run's.
             QStringLiteral("ALTER TABLE jobs ADD COLUMN cluster TEXT NOT NULL DEFAULT ''"),
             QStringLiteral("UPDATE jobs SET cluster = (SELECT r.cluster FROM runs r WHERE r.id = jobs.run_id)"),
         }},
        {10,
         {
             // How each attempt came to be (JobRecord::origin): the restart budget counts the agent's own restarts
             // only. Attempts recorded before stay '' and count as before.
             QStringLiteral("ALTER TABLE jobs ADD COLUMN origin TEXT NOT NULL DEFAULT ''"),
         }},
    };
}

StoreResult<int> storeSchemaVersion(QSqlDatabase &db)
{
    const QStringList tables = db.tables(QSql::Tables);
    if (!tables.contains(QStringLiteral("schema_version"))) {
        if (!tables.isEmpty())
            return StoreResult<int>::failure(core::Tr::tr("not a torchdeck run store (tables %1, no schema_version)")
                                                 .arg(tables.join(QStringLiteral(", "))));
        return {0, {}};
    }
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("SELECT version FROM schema_version")) || !q.next())
        return StoreResult<int>::failure(core::Tr::tr("cannot read the schema version: %1").arg(q.lastError().text()));
    return {q.value(0).toInt(), {}};
}

namespace {
StoreResult<int> newerThanKnown(int version, int latest)
{
    return StoreResult<int>::failure(
        core::Tr::tr("the run store has schema version %1, newer than this torchdeck knows "
                     "(%2): open it with a newer torchdeck or give another path")
            .arg(version)
            .arg(latest));
}

// One step from the version read under the write lock, in its own transaction: a failed step keeps the ones before.
StoreResult<int> migrateOneStep(QSqlDatabase &db, const QList<StoreMigration> &migrations, int latest)
{
    QSqlQuery q(db);
    // IMMEDIATE: the write lock before the version is read. Another process (the agent a front starts, a second
    // front) may be migrating the same store; reading first would have both run the same step.
    if (!q.exec(QStringLiteral("BEGIN IMMEDIATE")))
        return StoreResult<int>::failure(
            core::Tr::tr("cannot lock the run store to migrate it: %1").arg(q.lastError().text()));
    const auto rollback = [&q](StoreResult<int> result) {
        q.finish();
        q.exec(QStringLiteral("ROLLBACK"));
        return result;
    };
    const StoreResult<int> current = storeSchemaVersion(db);
    if (!current.ok())
        return rollback(current);
    if (current.value > latest)
        return rollback(newerThanKnown(current.value, latest));
    if (current.value == latest)
        return rollback(current); // another process migrated it meanwhile
    const auto next = std::find_if(migrations.cbegin(), migrations.cend(),
                                   [&current](const StoreMigration &m) { return m.version > current.value; });
    if (next->version != current.value + 1)
        return rollback(StoreResult<int>::failure(
            core::Tr::tr("no migration from schema version %1 to %2").arg(current.value).arg(next->version)));
    QStringList statements = next->statements;
    statements.append(QStringLiteral("UPDATE schema_version SET version = %1").arg(next->version));
    for (const QString &sql : std::as_const(statements)) {
        if (!q.exec(sql))
            return rollback(StoreResult<int>::failure(core::Tr::tr("migration to schema version %1 failed: %2 (in: %3)")
                                                          .arg(next->version)
                                                          .arg(q.lastError().text(), sql)));
    }
    if (!q.exec(QStringLiteral("COMMIT")))
        return rollback(StoreResult<int>::failure(
            core::Tr::tr("cannot commit migration %1: %2").arg(next->version).arg(q.lastError().text())));
    qCDebug(lcStore) << "run store migrated to schema version" << next->version; // quiet: a first run is no news
    return {next->version, {}};
}
} // namespace

StoreResult<int> migrateStore(QSqlDatabase &db, const QList<StoreMigration> &migrations)
{
    const int latest = migrations.isEmpty() ? 0 : migrations.last().version;
    StoreResult<int> current = storeSchemaVersion(db); // without a lock: an up-to-date store takes none
    while (current.ok() && current.value < latest)
        current = migrateOneStep(db, migrations, latest);
    if (current.ok() && current.value > latest)
        return newerThanKnown(current.value, latest);
    return current;
}

} // namespace torchdeck
