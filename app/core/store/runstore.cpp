#include "core/store/runstore.h"

#include "core/appidentity.h"
#include "core/coretr.h"
#include "core/privatefiles.h"
#include "core/store/keptlogs.h"
#include "core/store/sqlvalues.h"
#include "core/store/storelog.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QThread>
#include <atomic>

namespace torchdeck {

namespace {

std::atomic<quint64> g_connectionCount{0};

const QString kMemory = QStringLiteral(":memory:");

// Two processes opening a new store at once (a front and the agent it starts) both turn it to WAL, which takes the
// whole file: where waiting could deadlock, SQLite says "locked" at once instead of waiting its busy timeout. Tried
// again for as long as that timeout.
bool execWaitingForLocks(QSqlQuery &q, QLatin1StringView sql)
{
    QDeadlineTimer deadline(5000);
    while (!q.exec(sql)) {
        const int code = q.lastError().nativeErrorCode().toInt() & 0xff; // SQLITE_BUSY, SQLITE_LOCKED and their kin
        if ((code != 5 && code != 6) || deadline.hasExpired())
            return false;
        QThread::msleep(20);
    }
    return true;
}

constexpr auto kRunColumns = "id, name, cluster, created, updated, state, spec_json, script, epochs_done, "
                             "epochs_total, last_loss, eta_seconds, message, auto_restart, note, tags, placement";

RunRecord readRun(const QSqlQuery &q)
{
    RunRecord r;
    r.id = q.value(0).toString();
    r.name = q.value(1).toString();
    r.cluster = q.value(2).toString();
    r.created = sql::toDateTime(q.value(3));
    r.updated = sql::toDateTime(q.value(4));
    r.state = q.value(5).toString();
    r.specJson = q.value(6).toString();
    r.script = q.value(7).toString();
    r.epochsDone = q.value(8).toLongLong();
    r.epochsTotal = sql::toCount(q.value(9));
    r.lastLoss = sql::toReal(q.value(10));
    // An ended run has nothing left to wait for, whichever way its end was written.
    r.etaSeconds = r.hasEnded() ? kNoValue : sql::toReal(q.value(11));
    r.message = q.value(12).toString();
    r.autoRestart = q.value(13).toBool();
    r.note = q.value(14).toString();
    r.tags = q.value(15).toString().split(u' ', Qt::SkipEmptyParts);
    r.placement = q.value(16).toString();
    return r;
}

QDateTime nowUtc()
{
    return QDateTime::currentDateTimeUtc();
}

} // namespace

QString sql::error(const QString &what, const QSqlQuery &query)
{
    return what + QStringLiteral(": ") + query.lastError().text();
}

StoreStatus sql::exec(QSqlQuery &query, const QString &what)
{
    return query.exec() ? StoreStatus{} : StoreStatus::failure(error(what, query));
}

StoreStatus sql::execOnRow(QSqlQuery &query, const QString &what, const QString &missing)
{
    StoreStatus done = exec(query, what);
    if (done.ok() && query.numRowsAffected() == 0)
        done = StoreStatus::failure(missing);
    return done;
}

StoreStatus sql::commit(Transaction &transaction, StoreStatus saved, const QString &runId)
{
    if (saved.ok() && !transaction.commit())
        saved = StoreStatus::failure(core::Tr::tr("cannot commit run %1: %2").arg(runId, transaction.error()));
    return saved;
}

QString RunStore::defaultPath()
{
    return dataDirectory() + QStringLiteral("/runs.sqlite");
}

RunStore::RunStore() = default;

RunStore::~RunStore()
{
    close();
}

StoreStatus RunStore::open(const QString &path)
{
    return open(path, storeMigrations());
}

StoreStatus RunStore::open(const QString &path, const QList<StoreMigration> &migrations)
{
    return openConnection(path, migrations, false);
}

StoreStatus RunStore::openReadOnly(const QString &path)
{
    // Made or migrated first where needed, then opened again as SQLite's read-only connection.
    if (const StoreStatus made = open(path); !made.ok() || path == kMemory)
        return made;
    close();
    return openConnection(path, storeMigrations(), true);
}

StoreStatus RunStore::openConnection(const QString &path, const QList<StoreMigration> &migrations, bool readOnly)
{
    close();
    const QString driver = QStringLiteral("QSQLITE");
    if (!QSqlDatabase::isDriverAvailable(driver))
        return StoreStatus::failure(core::Tr::tr("Qt's SQLite driver is not installed (Debian: libqt6sql6-sqlite)"));
    if (path != kMemory && !readOnly) {
        const QString folder = QFileInfo(path).absolutePath();
        // The data folder is torchdeck's own: private. A store elsewhere (tests, exports) leaves its folder alone.
        const QString made = QDir(folder) == QDir(dataDirectory()) ? makePrivateDirectory(folder)
                             : QDir().mkpath(folder)               ? QString()
                                                     : core::Tr::tr("cannot create the folder of %1").arg(path);
        if (!made.isEmpty())
            return StoreStatus::failure(made);
        // The store and SQLite's journal files, which take the store's mode, readable by the user only.
        // NewOnly: another process that made it meanwhile (a front and the agent it starts) keeps what it wrote.
        if (QFile created(path); !QFileInfo::exists(path) && !created.open(QIODevice::WriteOnly | QIODevice::NewOnly) &&
                                 !QFileInfo::exists(path))
            return StoreStatus::failure(core::Tr::tr("cannot create %1: %2").arg(path, created.errorString()));
        for (const QString &file : QStringList{path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")}) {
            if (const QString problem = makePrivateFile(file); !problem.isEmpty())
                return StoreStatus::failure(problem);
        }
    }

    const QString name = QStringLiteral("torchdeck.runstore.%1").arg(++g_connectionCount);
    StoreStatus status;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(driver, name);
        db.setDatabaseName(path);
        db.setConnectOptions(readOnly ? QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000;QSQLITE_OPEN_READONLY")
                                      : QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
        if (!db.open()) {
            status = StoreStatus::failure(core::Tr::tr("cannot open %1: %2").arg(path, db.lastError().text()));
        } else {
            QSqlQuery q(db);
            for (const char *pragma :
                 {"PRAGMA foreign_keys = ON", "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"}) {
                if (readOnly && QLatin1StringView(pragma).contains(QLatin1StringView("journal_mode")))
                    continue; // the writer set it when it made the store
                if (!execWaitingForLocks(q, QLatin1StringView(pragma))) {
                    status = StoreStatus::failure(sql::error(path, q)); // e.g. "file is not a database"
                    break;
                }
            }
            q.finish();
            if (status.ok() && readOnly) {
                const StoreResult<int> version = storeSchemaVersion(db);
                if (version.ok())
                    m_version = version.value;
                else
                    status = StoreStatus::failure(path + QStringLiteral(": ") + version.error);
            } else if (status.ok()) {
                const StoreResult<int> migrated = migrateStore(db, migrations);
                if (migrated.ok())
                    m_version = migrated.value;
                else
                    status = StoreStatus::failure(path + QStringLiteral(": ") + migrated.error);
            }
            if (!status.ok())
                db.close();
        }
    }
    if (!status.ok()) {
        QSqlDatabase::removeDatabase(name);
        qCWarning(lcStore) << status.error;
        return status;
    }
    m_connection = name;
    m_path = path;
    m_readOnly = readOnly;
    return status;
}

void RunStore::close()
{
    if (m_connection.isEmpty())
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
    m_connection.clear();
    m_version = 0;
    m_readOnly = false;
}

QSqlDatabase RunStore::database() const
{
    return QSqlDatabase::database(m_connection, false);
}

StoreStatus RunStore::notOpen() const
{
    return StoreStatus::failure(core::Tr::tr("the run store is not open"));
}

StoreResult<qint64> RunStore::runKey(QSqlDatabase &db, const QString &runId) const
{
    QSqlQuery q(db);
    q.prepare(QStringLiteral("SELECT key FROM runs WHERE id = ?"));
    q.addBindValue(runId);
    if (!q.exec())
        return StoreResult<qint64>::failure(sql::error(core::Tr::tr("run %1").arg(runId), q));
    if (!q.next())
        return StoreResult<qint64>::failure(core::Tr::tr("no run %1 in the store").arg(runId));
    return {q.value(0).toLongLong(), {}};
}

StoreStatus RunStore::addRun(const RunRecord &run)
{
    if (!isOpen())
        return notOpen();
    if (run.id.isEmpty())
        return StoreStatus::failure(core::Tr::tr("a run needs an id"));
    QSqlQuery q(database());
    q.prepare(QStringLiteral("INSERT INTO runs (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                  .arg(QLatin1StringView(kRunColumns)));
    const QDateTime now = nowUtc();
    for (const QVariant &v :
         {sql::text(run.id), sql::text(run.name), sql::text(run.cluster),
          sql::msecs(run.created.isValid() ? run.created : now), sql::msecs(now), sql::text(run.state),
          sql::text(run.specJson), sql::text(run.script), QVariant(run.epochsDone), sql::count(run.epochsTotal),
          sql::real(run.lastLoss), sql::real(run.etaSeconds), sql::text(run.message), QVariant(run.autoRestart),
          sql::text(run.note), sql::text(run.tags.join(u' ')), sql::text(run.placement)})
        q.addBindValue(v);
    if (!q.exec())
        return StoreStatus::failure(sql::error(core::Tr::tr("cannot add run %1").arg(run.id), q));
    return {};
}

StoreStatus RunStore::updateRun(const RunRecord &run)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("UPDATE runs SET cluster = ?, updated = ?, state = ?, spec_json = ?, "
                             "script = ?, epochs_done = ?, epochs_total = ?, last_loss = ?, eta_seconds = ?, "
                             "message = ? WHERE id = ?"));
    for (const QVariant &v :
         {sql::text(run.cluster), sql::msecs(nowUtc()), sql::text(run.state), sql::text(run.specJson),
          sql::text(run.script), QVariant(run.epochsDone), sql::count(run.epochsTotal), sql::real(run.lastLoss),
          sql::real(run.etaSeconds), sql::text(run.message), sql::text(run.id)})
        q.addBindValue(v);
    return sql::execOnRow(q, core::Tr::tr("cannot update run %1").arg(run.id),
                          core::Tr::tr("no run %1 in the store").arg(run.id));
}

StoreStatus RunStore::annotateRun(const QString &runId, const RunAnnotation &annotation)
{
    if (!isOpen())
        return notOpen();
    QStringList set;
    QVariantList values;
    if (annotation.name) {
        set.append(QStringLiteral("name = ?"));
        values.append(sql::text(*annotation.name));
    }
    if (annotation.note) {
        set.append(QStringLiteral("note = ?"));
        values.append(sql::text(*annotation.note));
    }
    if (annotation.tags) {
        set.append(QStringLiteral("tags = ?"));
        values.append(sql::text(annotation.tags->join(u' ')));
    }
    set.append(QStringLiteral("updated = ?"));
    values.append(sql::msecs(nowUtc()));
    values.append(sql::text(runId));
    QSqlQuery q(database());
    q.prepare(QStringLiteral("UPDATE runs SET %1 WHERE id = ?").arg(set.join(QStringLiteral(", "))));
    for (const QVariant &v : std::as_const(values))
        q.addBindValue(v);
    return sql::execOnRow(q, core::Tr::tr("cannot update run %1").arg(runId),
                          core::Tr::tr("no run %1 in the store").arg(runId));
}

StoreStatus RunStore::setAutoRestart(const QString &runId, bool enabled)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("UPDATE runs SET auto_restart = ?, updated = ? WHERE id = ?"));
    for (const QVariant &v : {QVariant(enabled), sql::msecs(nowUtc()), sql::text(runId)})
        q.addBindValue(v);
    return sql::execOnRow(q, core::Tr::tr("cannot update run %1").arg(runId),
                          core::Tr::tr("no run %1 in the store").arg(runId));
}

StoreStatus RunStore::recordSubmission(const RunRecord &run, const JobRecord &job)
{
    if (!isOpen())
        return notOpen();
    sql::Transaction transaction(database());
    if (!transaction.begun())
        return StoreStatus::failure(transaction.beginError());
    const auto existing = this->run(run.id);
    StoreStatus saved = !existing.ok()   ? StoreStatus::failure(existing.error)
                        : existing.value ? updateRun(run)
                                         : addRun(run);
    if (saved.ok())
        saved = saveJob(job);
    return sql::commit(transaction, saved, run.id);
}

StoreStatus RunStore::updateProgress(const QString &runId, const QString &state, qint64 epochsDone, qint64 epochsTotal,
                                     double lastLoss, double etaSeconds)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("UPDATE runs SET updated = ?, state = ?, epochs_done = ?, epochs_total = ?, "
                             "last_loss = ?, eta_seconds = ? WHERE id = ?"));
    for (const QVariant &v : {sql::msecs(nowUtc()), sql::text(state), QVariant(epochsDone), sql::count(epochsTotal),
                              sql::real(lastLoss), sql::real(etaSeconds), sql::text(runId)})
        q.addBindValue(v);
    return sql::execOnRow(q, core::Tr::tr("cannot update run %1").arg(runId),
                          core::Tr::tr("no run %1 in the store").arg(runId));
}

StoreResult<std::optional<RunRecord>> RunStore::run(const QString &id) const
{
    using Result = StoreResult<std::optional<RunRecord>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlQuery q(database());
    q.prepare(QStringLiteral("SELECT %1 FROM runs WHERE id = ?").arg(QLatin1StringView(kRunColumns)));
    q.addBindValue(id);
    if (!q.exec())
        return Result::failure(sql::error(core::Tr::tr("cannot read run %1").arg(id), q));
    if (!q.next())
        return {};
    return {readRun(q), {}};
}

StoreResult<QList<RunRecord>> RunStore::runs(const QString &cluster) const
{
    using Result = StoreResult<QList<RunRecord>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlQuery q(database());
    q.setForwardOnly(true);
    const QString where = cluster.isEmpty() ? QString() : QStringLiteral(" WHERE cluster = ?");
    q.prepare(QStringLiteral("SELECT %1 FROM runs%2 ORDER BY created DESC, key DESC")
                  .arg(QLatin1StringView(kRunColumns), where));
    if (!cluster.isEmpty())
        q.addBindValue(cluster);
    if (!q.exec())
        return Result::failure(sql::error(core::Tr::tr("cannot list runs"), q));
    Result result;
    while (q.next())
        result.value.append(readRun(q));
    return result;
}

StoreStatus RunStore::removeRun(const QString &id)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("DELETE FROM runs WHERE id = ?"));
    q.addBindValue(id);
    if (!q.exec())
        return StoreStatus::failure(sql::error(core::Tr::tr("cannot remove run %1").arg(id), q));
    removeKeptLogs(m_path, id);
    return {};
}

} // namespace torchdeck
