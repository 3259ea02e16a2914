#include "core/profiles/profilestore.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
const QString sandbox = QStringLiteral("torchdeck-sandbox");

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

ClusterProfile pbsProfile()
{
    ClusterProfile p = defaultProfile(QStringLiteral("hpc"));
    p.scheduler = SchedulerKind::Pbs;
    p.pbsDialect = PbsDialect::Torque;
    p.account = QStringLiteral("proj");
    p.partition = QStringLiteral("workq");
    p.workDirectory = QStringLiteral("/scratch/ada");
    p.modules = {QStringLiteral("gcc/12"), QStringLiteral("openmpi/4.1")};
    p.libtorch = QStringLiteral("/opt/libtorch");
    p.trainerBinary = QStringLiteral("/opt/td/torchdeck-train");
    return p;
}

// Restores an environment variable when the test leaves.
class EnvGuard {
public:
    explicit EnvGuard(const char *name)
        : m_name(name)
        , m_had(qEnvironmentVariableIsSet(name))
        , m_value(qgetenv(name))
    {
    }
    ~EnvGuard()
    {
        if (m_had)
            qputenv(m_name, m_value);
        else
            qunsetenv(m_name);
    }

private:
    const char *m_name;
    bool m_had;
    QByteArray m_value;
};
} // namespace

class TestProfileStore : public QObject {
    Q_OBJECT
private slots:
    void init();
    void missingFileIsAnEmptyStore();
    void savesAndReloads();
    void saveCreatesTheDirectory();
    void removeAndOverwrite();
    void unknownKeysInTheFileAreIgnored();
    void brokenFile_data();
    void brokenFile();
    void repairedFileLoadsAgain();
    void saveReplacesTheFileAtomically();
    void saveFailureIsReported();
    void twoWritersKeepEachOthersChanges();
    void followsAnotherWriterKeepingUnsavedEdits();
    void defaultPathHonoursConfigDir();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString path() const { return m_dir->filePath(QStringLiteral("clusters.json")); }
};

void TestProfileStore::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestProfileStore::missingFileIsAnEmptyStore()
{
    ProfileStore store(path());
    QString error;
    QVERIFY(store.load(&error));
    QVERIFY(error.isEmpty());
    QVERIFY(store.names().isEmpty());
    QVERIFY(!store.contains(sandbox));
    // Unsaved names give their built-in defaults.
    QVERIFY(store.profile(sandbox) == defaultProfile(sandbox));
    QVERIFY(store.profile(QStringLiteral("hpc")) == defaultProfile(QStringLiteral("hpc")));
    QVERIFY(!QFile::exists(path())); // loading creates nothing
}

void TestProfileStore::savesAndReloads()
{
    ProfileStore store(path());
    QString error;
    QVERIFY(store.load(&error));
    ClusterProfile box = defaultProfile(sandbox);
    box.modules = {QStringLiteral("module with 'quotes' and $(x)")};
    store.put(box);
    store.put(pbsProfile());
    QVERIFY2(store.save(&error), qPrintable(error));

    const QJsonObject root = QJsonDocument::fromJson(readFile(path())).object();
    const QJsonObject clusters = root.value(u"clusters").toObject();
    QCOMPARE(clusters.keys(), (QStringList{QStringLiteral("hpc"), sandbox}));
    QCOMPARE(clusters.value(u"hpc").toObject().value(u"scheduler").toString(), QStringLiteral("pbs"));

    ProfileStore again(path());
    QVERIFY2(again.load(&error), qPrintable(error));
    QCOMPARE(again.names(), (QStringList{QStringLiteral("hpc"), sandbox}));
    QVERIFY(again.contains(QStringLiteral("hpc")));
    QVERIFY(again.profile(QStringLiteral("hpc")) == pbsProfile());
    QVERIFY(again.profile(sandbox) == box);

    // Saving what was loaded writes the same bytes.
    const QByteArray before = readFile(path());
    QVERIFY2(again.save(&error), qPrintable(error));
    QCOMPARE(readFile(path()), before);
}

void TestProfileStore::saveCreatesTheDirectory()
{
    const QString nested = m_dir->filePath(QStringLiteral("a/b c/clusters.json"));
    ProfileStore store(nested);
    QString error;
    QVERIFY(store.load(&error));
    store.put(pbsProfile());
    QVERIFY2(store.save(&error), qPrintable(error));
    ProfileStore again(nested);
    QVERIFY2(again.load(&error), qPrintable(error));
    QVERIFY(again.profile(QStringLiteral("hpc")) == pbsProfile());
}

void TestProfileStore::removeAndOverwrite()
{
    ProfileStore store(path());
    QString error;
    QVERIFY(store.load(&error));
    store.put(pbsProfile());
    store.put(defaultProfile(sandbox));
    QVERIFY(store.save(&error));

    QVERIFY(store.remove(QStringLiteral("hpc")));
    QVERIFY(!store.remove(QStringLiteral("hpc")));
    QVERIFY(!store.remove(QStringLiteral("never-there")));
    ClusterProfile box = defaultProfile(sandbox);
    box.partition = QStringLiteral("debug");
    store.put(box); // replaces the one of that name
    QCOMPARE(store.names(), QStringList{sandbox});
    QVERIFY(store.save(&error));

    ProfileStore again(path());
    QVERIFY2(again.load(&error), qPrintable(error));
    QCOMPARE(again.names(), QStringList{sandbox});
    QCOMPARE(again.profile(sandbox).partition, QStringLiteral("debug"));
    QVERIFY(again.profile(QStringLiteral("hpc")) == defaultProfile(QStringLiteral("hpc")));

    // load() starts over: what was put and not saved is gone.
    again.put(pbsProfile());
    QVERIFY(again.load(&error));
    QVERIFY(!again.contains(QStringLiteral("hpc")));
}

void TestProfileStore::unknownKeysInTheFileAreIgnored()
{
    QVERIFY(writeFile(path(), R"({
        "version": 7,
        "defaults": {"theme": "dark"},
        "clusters": {
            "hpc": {"scheduler": "pbs", "pbs_dialect": "torque", "gpu_type": "h100", "quota": {"gb": 10}}
        }
    })"));
    ProfileStore store(path());
    QString error;
    QVERIFY2(store.load(&error), qPrintable(error));
    QCOMPARE(store.names(), QStringList{QStringLiteral("hpc")});
    QCOMPARE(store.profile(QStringLiteral("hpc")).scheduler, SchedulerKind::Pbs);
    QCOMPARE(store.profile(QStringLiteral("hpc")).pbsDialect, PbsDialect::Torque);
    QVERIFY(store.save(&error)); // a readable file may be rewritten
}

void TestProfileStore::brokenFile_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("mentions");
    QTest::addRow("not JSON") << QByteArray("clusters = { hpc }\n") << QString();
    QTest::addRow("truncated") << QByteArray(R"({"clusters": {"hpc": {"scheduler": "pb)") << QString();
    QTest::addRow("a list") << QByteArray(R"([{"clusters": {}}])") << QString();
    QTest::addRow("a string") << QByteArray(R"("clusters")") << QString();
    QTest::addRow("clusters is a list") << QByteArray(R"({"clusters": [{"hpc": {}}]})") << QStringLiteral("clusters");
    QTest::addRow("clusters is a string") << QByteArray(R"({"clusters": "hpc"})") << QStringLiteral("clusters");
    QTest::addRow("a cluster is not an object")
        << QByteArray(R"({"clusters": {"hpc": "slurm"}})") << QStringLiteral("hpc");
    QTest::addRow("unknown scheduler") << QByteArray(R"({"clusters": {"ok": {}, "hpc": {"scheduler": "sge"}}})")
                                       << QStringLiteral("hpc: scheduler \"sge\"");
    QTest::addRow("modules not a list") << QByteArray(R"({"clusters": {"hpc": {"modules": "gcc"}}})")
                                        << QStringLiteral("modules");
    QTest::addRow("empty work directory")
        << QByteArray(R"({"clusters": {"hpc": {"work_directory": ""}}})") << QStringLiteral("work_directory");
}

void TestProfileStore::brokenFile()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, mentions);
    QVERIFY(writeFile(path(), bytes));

    ProfileStore store(path());
    QString error;
    QVERIFY(!store.load(&error));
    QVERIFY2(error.contains(path()), qPrintable(error));
    if (!mentions.isEmpty())
        QVERIFY2(error.contains(mentions), qPrintable(error));

    // Nothing the user did since may overwrite the file they have to repair.
    store.put(pbsProfile());
    error.clear();
    QVERIFY(!store.save(&error));
    QVERIFY2(error.contains(path()), qPrintable(error));
    QCOMPARE(readFile(path()), bytes);
    QCOMPARE(QDir(m_dir->path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("clusters.json")});
}

void TestProfileStore::repairedFileLoadsAgain()
{
    QVERIFY(writeFile(path(), "{ broken"));
    ProfileStore store(path());
    QString error;
    QVERIFY(!store.load(&error));
    QVERIFY(writeFile(path(), R"({"clusters": {"hpc": {"partition": "debug"}}})"));
    error.clear();
    QVERIFY2(store.load(&error), qPrintable(error));
    QCOMPARE(store.profile(QStringLiteral("hpc")).partition, QStringLiteral("debug"));
    store.put(pbsProfile());
    QVERIFY2(store.save(&error), qPrintable(error));
}

void TestProfileStore::saveReplacesTheFileAtomically()
{
    ProfileStore store(path());
    QString error;
    QVERIFY(store.load(&error));
    store.put(defaultProfile(sandbox));
    QVERIFY(store.save(&error));
    const QByteArray first = readFile(path());

    // A reader that opened the old file keeps reading all of it: the new file is renamed over the old one,
    // never truncated and rewritten in place.
    QFile reader(path());
    QVERIFY(reader.open(QIODevice::ReadOnly));
    store.put(pbsProfile());
    QVERIFY2(store.save(&error), qPrintable(error));
    QCOMPARE(reader.readAll(), first);

    const QByteArray second = readFile(path());
    QVERIFY(second != first);
    QVERIFY(QJsonDocument::fromJson(second).isObject());
    // No temporary file left beside it.
    QCOMPARE(QDir(m_dir->path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("clusters.json")});
}

void TestProfileStore::saveFailureIsReported()
{
    // The path's directory cannot be made: a plain file stands where it should be.
    const QString blocker = m_dir->filePath(QStringLiteral("not-a-dir"));
    QVERIFY(writeFile(blocker, "x"));
    const QString target = blocker + QStringLiteral("/clusters.json");
    ProfileStore store(target);
    QString error;
    QVERIFY(store.load(&error));
    store.put(pbsProfile());
    QVERIFY(!store.save(&error));
    QVERIFY2(error.contains(target), qPrintable(error));
    QCOMPARE(readFile(blocker), QByteArray("x"));
}

void TestProfileStore::twoWritersKeepEachOthersChanges()
{
    // A front and the agent each load the file, then save: neither undoes the other's profiles, and the
    // shape kept is the one read last, whichever wrote it (a front's dialog carries the shape it loaded).
    ProfileStore seed(path());
    QString error;
    QVERIFY(seed.load(&error));
    seed.put(defaultProfile(sandbox));
    QVERIFY(seed.save(&error));

    ProfileStore front(path());
    ProfileStore agent(path());
    QVERIFY(front.load(&error) && agent.load(&error));
    ClusterProfile shaped = agent.profile(sandbox);
    shaped.partitions = {PartitionCaps{QStringLiteral("short"), 0, 4, 1800, 1}};
    shaped.partitionsReadAt = QDateTime::currentDateTimeUtc();
    agent.put(shaped);
    QVERIFY2(agent.save(&error), qPrintable(error));

    ClusterProfile edited = front.profile(sandbox); // loaded before the agent saved: no partitions
    edited.modules = {QStringLiteral("cuda")};
    front.put(edited);
    front.put(pbsProfile());
    QVERIFY2(front.save(&error), qPrintable(error));

    ProfileStore after(path());
    QVERIFY(after.load(&error));
    QCOMPARE(after.profile(sandbox).modules, QStringList{QStringLiteral("cuda")});
    QCOMPARE(after.profile(sandbox).partitions.size(), 1);
    QCOMPARE(after.profile(sandbox).partitionsReadAt, shaped.partitionsReadAt);
    QVERIFY(after.contains(QStringLiteral("hpc")));
    QCOMPARE(front.profile(sandbox).partitions.size(), 1); // the writer sees what it wrote

    // One it never knew of is not its to remove; one it knows of goes.
    QVERIFY(!agent.remove(QStringLiteral("hpc")));
    QVERIFY2(agent.save(&error), qPrintable(error));
    ProfileStore last(path());
    QVERIFY(last.load(&error));
    QVERIFY(last.contains(QStringLiteral("hpc")));
    QVERIFY(last.remove(QStringLiteral("hpc")));
    QVERIFY2(last.save(&error), qPrintable(error));
    QVERIFY(after.load(&error));
    QVERIFY(!after.contains(QStringLiteral("hpc")));
}

void TestProfileStore::followsAnotherWriterKeepingUnsavedEdits()
{
    // A window's store follows what the agent saves (a shape it read), without losing the window's unsaved edits.
    ProfileStore seed(path());
    QString error;
    QVERIFY(seed.load(&error));
    seed.put(defaultProfile(sandbox));
    seed.put(pbsProfile());
    QVERIFY(seed.save(&error));

    ProfileStore window(path());
    QVERIFY(window.load(&error));
    const QMap<QString, ClusterProfile> loaded = window.profiles();
    QVERIFY2(window.follow(&error), qPrintable(error));
    QVERIFY(window.profiles() == loaded); // nothing new

    ClusterProfile edited = window.profile(QStringLiteral("hpc"));
    edited.modules = {QStringLiteral("cuda")};
    window.put(edited); // not saved yet

    ProfileStore agent(path());
    QVERIFY(agent.load(&error));
    QVERIFY(agent.update(
        sandbox,
        [](ClusterProfile &p) {
            p.partitions = {PartitionCaps{QStringLiteral("short"), 0, 4, 1800, 1}};
            p.partitionsReadAt = QDateTime::currentDateTimeUtc();
        },
        &error));
    QVERIFY(agent.update(
        QStringLiteral("hpc"),
        [](ClusterProfile &p) {
            p.partitions = {PartitionCaps{QStringLiteral("workq"), 0, 8, 3600, 1}};
            p.partitionsReadAt = QDateTime::currentDateTimeUtc();
        },
        &error));
    QVERIFY(agent.update(
        QStringLiteral("gamma"), [](ClusterProfile &) {}, &error)); // saved by another front

    QVERIFY2(window.follow(&error), qPrintable(error));
    QCOMPARE(window.names(), (QStringList{QStringLiteral("gamma"), QStringLiteral("hpc"), sandbox}));
    QCOMPARE(window.profile(sandbox).partitions.size(), 1);
    QVERIFY(window.contains(QStringLiteral("gamma")));
    const ClusterProfile hpc = window.profile(QStringLiteral("hpc"));
    QCOMPARE(hpc.modules, QStringList{QStringLiteral("cuda")}); // the unsaved edit stays, with the newer shape
    QCOMPARE(hpc.partitions.size(), 1);
    QVERIFY2(window.save(&error), qPrintable(error));
    ProfileStore after(path());
    QVERIFY(after.load(&error));
    QVERIFY(after.profile(QStringLiteral("hpc")) == hpc);

    // Removed by another writer: gone here too; a broken file changes nothing here.
    QVERIFY(agent.load(&error) && agent.remove(QStringLiteral("gamma")) && agent.save(&error));
    QVERIFY(window.follow(&error));
    QVERIFY(!window.contains(QStringLiteral("gamma")));
    // An edit that could not be saved, taken back: the file's copy is followed again.
    ClusterProfile unsaved = window.profile(sandbox);
    unsaved.modules = {QStringLiteral("gcc")};
    window.put(unsaved);
    window.revert(sandbox, after.profile(sandbox));
    QVERIFY(agent.update(
        sandbox, [](ClusterProfile &p) { p.modules = {QStringLiteral("cmake")}; }, &error));
    QVERIFY(window.follow(&error));
    QCOMPARE(window.profile(sandbox).modules, QStringList{QStringLiteral("cmake")});
    QFile broken(path());
    QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
    broken.write("{ torn");
    broken.close();
    QVERIFY(!window.follow(&error));
    QVERIFY(window.contains(sandbox));
    QCOMPARE(window.profile(sandbox).partitions.size(), 1);
}

void TestProfileStore::defaultPathHonoursConfigDir()
{
    EnvGuard guard("TORCHDECK_CONFIG_DIR");
    const QString dir = m_dir->filePath(QStringLiteral("conf dir"));
    qputenv("TORCHDECK_CONFIG_DIR", dir.toUtf8());
    QCOMPARE(ProfileStore::defaultPath(), dir + QStringLiteral("/clusters.json"));
    QCOMPARE(ProfileStore().path(), dir + QStringLiteral("/clusters.json"));

    // Saved there, and found there again.
    ProfileStore store;
    QString error;
    QVERIFY(store.load(&error));
    store.put(pbsProfile());
    QVERIFY2(store.save(&error), qPrintable(error));
    QVERIFY(QFile::exists(dir + QStringLiteral("/clusters.json")));
    ProfileStore again;
    QVERIFY(again.load(&error));
    QVERIFY(again.profile(QStringLiteral("hpc")) == pbsProfile());

    // Unset or empty: torchdeck's folder in the platform's configuration location (~/.config/torchdeck),
    // whatever the application's name and organization.
    const QString standard = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
                             QStringLiteral("/torchdeck/clusters.json");
    qunsetenv("TORCHDECK_CONFIG_DIR");
    QCOMPARE(ProfileStore::defaultPath(), standard);
    qputenv("TORCHDECK_CONFIG_DIR", QByteArray());
    QCOMPARE(ProfileStore::defaultPath(), standard);
}

TORCHDECK_TEST_MAIN(TestProfileStore)
#include "tst_profilestore.moc"
