#include "core/store/runstore.h"
#include "testmain.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <future>
#include <thread>

using namespace torchdeck;

class TestStoreSchema : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void migratesAnEmptyDatabase();
    void migratesAnOlderStoreAndKeepsItsData();
    void failedMigrationLeavesTheLastVersion();
    void version4KnowsTheLogsEvents();
    void refusesANewerStore();
    void refusesForeignDatabases();
    void refusesAFileThatIsNotADatabase();
    void unwritableFolderIsAnError();
    void aSecondOpenerWaitsForTheFirstsMigration();
    void twoOpenersOfANewStoreAtOnceBothOpenIt();
};

void TestStoreSchema::migratesAnEmptyDatabase()
{
    const QString path = m_dir.filePath(QStringLiteral("fresh/sub/runs.sqlite"));
    RunStore store;
    const StoreStatus status = store.open(path);
    QVERIFY2(status.ok(), qPrintable(status.error));
    QCOMPARE(store.schemaVersion(), storeMigrations().last().version);
    QVERIFY(QFile::exists(path));
    QVERIFY(store.runs().ok());
    store.close();
    // Reopening an up-to-date store runs no migration and keeps the version.
    QVERIFY(store.open(path).ok());
    QCOMPARE(store.schemaVersion(), storeMigrations().last().version);
}

// A next version that adds a column, applied to a store written by this one.
void TestStoreSchema::migratesAnOlderStoreAndKeepsItsData()
{
    const int now = storeMigrations().last().version;
    const QString path = m_dir.filePath(QStringLiteral("old.sqlite"));
    {
        RunStore v1;
        QVERIFY(v1.open(path).ok());
        RunRecord run;
        run.id = QStringLiteral("r1");
        run.name = QStringLiteral("old run");
        run.cluster = QStringLiteral("c");
        const StoreStatus added = v1.addRun(run);
        QVERIFY2(added.ok(), qPrintable(added.error));
    }
    QList<StoreMigration> migrations = storeMigrations();
    migrations.append({now + 1, {QStringLiteral("ALTER TABLE runs ADD COLUMN future TEXT NOT NULL DEFAULT ''")}});
    RunStore v2;
    const StoreStatus status = v2.open(path, migrations);
    QVERIFY2(status.ok(), qPrintable(status.error));
    QCOMPARE(v2.schemaVersion(), now + 1);
    const auto run = v2.run(QStringLiteral("r1"));
    QVERIFY(run.ok() && run.value.has_value());
    QCOMPARE(run.value->name, QStringLiteral("old run"));
    // Version 1 cannot open what version 2 wrote.
    RunStore v1again;
    const StoreStatus refused = v1again.open(path);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error.contains(QStringLiteral("newer")), qPrintable(refused.error));
}

// Events stored before sources were: a custom command's are its log's, unless its metrics file had data.
void TestStoreSchema::version4KnowsTheLogsEvents()
{
    const QString path = m_dir.filePath(QStringLiteral("v3.sqlite"));
    const QList<StoreMigration> v3 = storeMigrations().mid(0, 3);
    QCOMPARE(v3.last().version, 3);
    const QList<std::pair<QString, QString>> runs{
        {QStringLiteral("custom-log"), QStringLiteral(R"({"commandKind":"custom","customCommand":"x"})")},
        {QStringLiteral("custom-file"), QStringLiteral(R"({"commandKind":"custom","customCommand":"x"})")},
        {QStringLiteral("trainer"), QStringLiteral(R"({"commandKind":"trainer"})")}};
    {
        RunStore store;
        QVERIFY(store.open(path, v3).ok());
    }
    QSqlDatabase db3 = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v3runs"));
    db3.setDatabaseName(path);
    QVERIFY(db3.open());
    {
        QSqlQuery q(db3);
        for (const auto &[id, spec] : runs) { // as version 3 wrote them: today's addRun writes later columns too
            q.prepare(QStringLiteral("INSERT INTO runs (id, name, cluster, created, updated, spec_json) "
                                     "VALUES (?, ?, '', 0, 0, ?)"));
            for (const QString &v : {id, id, spec})
                q.addBindValue(v);
            QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
        }
    }
    db3.close();
    QSqlDatabase::removeDatabase(QStringLiteral("v3runs"));
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v3"));
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery q(db);
        // The jobs as version 3 wrote them (today's saveJob writes later columns too).
        QVERIFY(q.exec(QStringLiteral("INSERT INTO jobs (run_id, attempt, job_id, metrics_offset) SELECT id, 0, '1', "
                                      "CASE id WHEN 'custom-file' THEN 120 ELSE 0 END FROM runs")));
        QVERIFY(q.exec(QStringLiteral("INSERT INTO metrics (run_key, seq, attempt, event, loss) SELECT key, 0, 0, 1, "
                                      "0.5 FROM runs")));
        q.finish();
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("v3"));
    RunStore store;
    const StoreStatus opened = store.open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error));
    QCOMPARE(store.metrics(QStringLiteral("custom-log")).value.constFirst().event.source, MetricSource::Log);
    QCOMPARE(store.metrics(QStringLiteral("custom-file")).value.constFirst().event.source, MetricSource::MetricsFile);
    QCOMPARE(store.metrics(QStringLiteral("trainer")).value.constFirst().event.source, MetricSource::MetricsFile);
}

void TestStoreSchema::failedMigrationLeavesTheLastVersion()
{
    const int now = storeMigrations().last().version;
    const QString path = m_dir.filePath(QStringLiteral("broken-migration.sqlite"));
    QList<StoreMigration> migrations = storeMigrations();
    migrations.append({now + 1, {QStringLiteral("CREATE TABLE extra (a INTEGER)"), QStringLiteral("THIS IS NOT SQL")}});
    RunStore store;
    const StoreStatus status = store.open(path, migrations);
    QVERIFY(!status.ok());
    QVERIFY2(status.error.contains(QStringLiteral("schema version %1").arg(now + 1)), qPrintable(status.error));
    QVERIFY(!store.isOpen());
    // The known versions completed, the failed one rolled back entirely (no half-made table).
    QVERIFY(store.open(path).ok());
    QCOMPARE(store.schemaVersion(), now);
    store.close();
    QList<StoreMigration> fixed = storeMigrations();
    fixed.append({now + 1, {QStringLiteral("CREATE TABLE extra (a INTEGER)")}});
    QVERIFY(store.open(path, fixed).ok());
    QCOMPARE(store.schemaVersion(), now + 1);
}

void TestStoreSchema::refusesANewerStore()
{
    const QString path = m_dir.filePath(QStringLiteral("future.sqlite"));
    {
        RunStore store;
        QVERIFY(store.open(path).ok());
    }
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw-future"));
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery q(db);
        QVERIFY(q.exec(QStringLiteral("UPDATE schema_version SET version = 99")));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw-future"));
    RunStore store;
    const StoreStatus status = store.open(path);
    QVERIFY(!status.ok());
    QVERIFY2(status.error.contains(QStringLiteral("99")), qPrintable(status.error));
}

void TestStoreSchema::refusesForeignDatabases()
{
    const QString path = m_dir.filePath(QStringLiteral("foreign.sqlite"));
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw-foreign"));
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery q(db);
        QVERIFY(q.exec(QStringLiteral("CREATE TABLE photos (id INTEGER)")));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw-foreign"));
    RunStore store;
    const StoreStatus status = store.open(path);
    QVERIFY(!status.ok());
    QVERIFY2(status.error.contains(QStringLiteral("not a torchdeck run store")), qPrintable(status.error));
}

void TestStoreSchema::refusesAFileThatIsNotADatabase()
{
    const QString path = m_dir.filePath(QStringLiteral("text.sqlite"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, 'x'));
    f.close();
    RunStore store;
    const StoreStatus status = store.open(path);
    QVERIFY(!status.ok());
    QVERIFY(!store.isOpen());
    QVERIFY(!status.error.isEmpty());
}

void TestStoreSchema::unwritableFolderIsAnError()
{
    RunStore store;
    const StoreStatus status = store.open(QStringLiteral("/proc/torchdeck-cannot-be-here/runs.sqlite"));
    QVERIFY(!status.ok());
    QVERIFY(!store.isOpen());
    QVERIFY(!store.runs().ok());
}

// A front and the agent it starts open a new store at once: the second waits for the first's migration and finds
// the store up to date, instead of running the same step again ("table schema_version already exists").
void TestStoreSchema::aSecondOpenerWaitsForTheFirstsMigration()
{
    const QString path = m_dir.filePath(QStringLiteral("raced.sqlite"));
    const int latest = storeMigrations().last().version;
    std::promise<QString> migrating; // empty: the first holds the write lock with the whole schema uncommitted
    QString committed;
    std::thread first([&path, &migrating, &committed, latest] {
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("first"));
            db.setDatabaseName(path);
            QSqlQuery q(db);
            QStringList statements{QStringLiteral("PRAGMA journal_mode = WAL"), QStringLiteral("BEGIN IMMEDIATE")};
            for (const StoreMigration &m : storeMigrations())
                statements.append(m.statements);
            statements.append(QStringLiteral("UPDATE schema_version SET version = %1").arg(latest));
            QString error = db.open() ? QString() : db.lastError().text();
            for (const QString &sql : std::as_const(statements))
                if (error.isEmpty() && !q.exec(sql))
                    error = sql + QStringLiteral(": ") + q.lastError().text();
            migrating.set_value(error);
            if (error.isEmpty()) {
                // Meanwhile the second opener reads version 0 (nothing committed) and waits for the lock. Had it
                // come later, it would find the store up to date at once: it passes either way, never by running
                // a step twice.
                std::this_thread::sleep_for(std::chrono::milliseconds(500));
                committed = q.exec(QStringLiteral("COMMIT")) ? QString() : q.lastError().text();
            }
            q = QSqlQuery();
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("first"));
    });
    const QString prepared = migrating.get_future().get();
    RunStore second;
    const StoreStatus status = prepared.isEmpty() ? second.open(path) : StoreStatus{};
    first.join();
    QVERIFY2(prepared.isEmpty(), qPrintable(prepared));
    QVERIFY2(committed.isEmpty(), qPrintable(committed));
    QVERIFY2(status.ok(), qPrintable(status.error));
    QCOMPARE(second.schemaVersion(), latest);
    QVERIFY(second.runs().ok());
}

// Both turn a new store to WAL at the same moment: SQLite answers one "locked" at once where waiting could
// deadlock. Neither fails, and the store is made once. Many rounds: the collision is a matter of microseconds.
void TestStoreSchema::twoOpenersOfANewStoreAtOnceBothOpenIt()
{
    for (int round = 0; round < 40; ++round) {
        const QString path = m_dir.filePath(QStringLiteral("together-%1.sqlite").arg(round));
        std::promise<void> go;
        const std::shared_future<void> started = go.get_future().share();
        const auto openIt = [&path, started] {
            started.wait();
            RunStore store;
            const StoreStatus status = store.open(path);
            return status.ok() ? (store.runs().ok() ? QString() : QStringLiteral("no runs table")) : status.error;
        };
        std::future<QString> first = std::async(std::launch::async, openIt);
        std::future<QString> second = std::async(std::launch::async, openIt);
        go.set_value();
        const QString firstError = first.get();
        const QString secondError = second.get();
        QVERIFY2(firstError.isEmpty(), qPrintable(QStringLiteral("round %1: %2").arg(round).arg(firstError)));
        QVERIFY2(secondError.isEmpty(), qPrintable(QStringLiteral("round %1: %2").arg(round).arg(secondError)));
    }
}

TORCHDECK_TEST_MAIN(TestStoreSchema)
#include "tst_storeschema.moc"
