#include "core/profiles/clusterprofile.h"
#include "testmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace torchdeck;

Q_DECLARE_METATYPE(torchdeck::ClusterProfile)
Q_DECLARE_METATYPE(torchdeck::SchedulerCommands)

namespace {
const QString sandbox = QStringLiteral("torchdeck-sandbox");

ClusterProfile everyFieldSet()
{
    ClusterProfile p;
    p.name = QStringLiteral("hpc");
    p.scheduler = SchedulerKind::Pbs;
    p.pbsDialect = PbsDialect::Torque;
    p.slurmHistory = SlurmHistory::Controller;
    p.account = QStringLiteral("proj-42");
    p.partition = QStringLiteral("gpu@server");
    p.workDirectory = QStringLiteral("/scratch/ada/torch deck");
    p.modules = {QStringLiteral("gcc/12.2"), QStringLiteral("cuda/12.1 cudnn"), QStringLiteral("λ 'quoted'")};
    p.libtorch = QStringLiteral("/opt/libtorch-2.3");
    p.trainerBinary = QStringLiteral("/home/ada/bin/torchdeck-train");
    p.buildInJob = true;
    p.buildCpus = 16;
    p.logPatterns = {QStringLiteral(R"(iter (?<step>\d+) cost (?<loss>\S+))")};
    p.notifyCommand = QStringLiteral("curl -s -d @- https://chat.example/hook");
    p.reach = {QStringLiteral("mahti=-p 22 -i ~/.ssh/id_mahti ada@mahti.csc.fi")};
    return p;
}

QJsonObject parse(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}
} // namespace

class TestClusterProfile : public QObject {
    Q_OBJECT
private slots:
    void defaults();
    void moduleLoadLinesAreQuoted();
    void reachLines();
    void roundTrips_data();
    void roundTrips();
    void writesDocumentedKeys();
    void missingKeysKeepTheDefaultsOfTheName();
    void unknownKeysAreIgnored();
    void badValueNamesItsKey_data();
    void badValueNamesItsKey();
    void clearsAnEarlierError();
    void libtorchPrefix();
    void names();
    void commands_data();
    void commands();
    void commandRowsAreDistinguishable();
    void shapeFreshForHalfADay();
};

void TestClusterProfile::defaults()
{
    const ClusterProfile plain = defaultProfile(QStringLiteral("hpc"));
    QCOMPARE(plain.name, QStringLiteral("hpc"));
    QCOMPARE(plain.scheduler, SchedulerKind::Slurm);
    QCOMPARE(plain.slurmHistory, SlurmHistory::Accounting);
    QCOMPARE(plain.pbsDialect, PbsDialect::PbsPro);
    QCOMPARE(plain.workDirectory, QStringLiteral("~/.torchdeck"));
    QCOMPARE(plain.libtorch, QStringLiteral("auto"));
    QVERIFY(plain.account.isEmpty());
    QVERIFY(plain.partition.isEmpty());
    QVERIFY(plain.modules.isEmpty());
    QVERIFY(plain.trainerBinary.isEmpty());

    // The sandbox runs Slurm without slurmdbd, and keeps its runs apart.
    const ClusterProfile box = defaultProfile(sandbox);
    QCOMPARE(box.name, sandbox);
    QCOMPARE(box.scheduler, SchedulerKind::Slurm);
    QCOMPARE(box.slurmHistory, SlurmHistory::CompletionFile);
    QCOMPARE(box.workDirectory, QStringLiteral("~/.torchdeck/sandbox"));
    QCOMPARE(box.libtorch, QStringLiteral("auto"));

    // Only that exact name.
    for (const QString &other : {QStringLiteral("torchdeck-sandbox2"), QStringLiteral("Torchdeck-Sandbox"),
                                 QStringLiteral("sandbox"), QString()}) {
        const ClusterProfile p = defaultProfile(other);
        QCOMPARE(p.slurmHistory, SlurmHistory::Accounting);
        QCOMPARE(p.workDirectory, QStringLiteral("~/.torchdeck"));
    }
}

void TestClusterProfile::roundTrips_data()
{
    QTest::addColumn<ClusterProfile>("profile");
    QTest::addRow("default") << defaultProfile(QStringLiteral("hpc"));
    QTest::addRow("sandbox") << defaultProfile(sandbox);
    QTest::addRow("every field set") << everyFieldSet();
    ClusterProfile pbsPro = everyFieldSet();
    pbsPro.pbsDialect = PbsDialect::PbsPro;
    pbsPro.modules.clear();
    QTest::addRow("pbspro, no modules") << pbsPro;
    ClusterProfile local = defaultProfile(QStringLiteral("laptop"));
    local.scheduler = SchedulerKind::Local;
    QTest::addRow("local") << local;
    ClusterProfile gentle = defaultProfile(QStringLiteral("strict-site"));
    gentle.minPollSeconds = 60;
    gentle.waitNoticeSeconds = 0;
    QTest::addRow("a site that wants a minute between polls") << gentle;
    // A sandbox profile moved off its defaults must not come back with them.
    ClusterProfile movedSandbox = defaultProfile(sandbox);
    movedSandbox.slurmHistory = SlurmHistory::Accounting;
    movedSandbox.workDirectory = QStringLiteral("~/.torchdeck");
    QTest::addRow("sandbox set to the plain defaults") << movedSandbox;
}

void TestClusterProfile::roundTrips()
{
    QFETCH(ClusterProfile, profile);
    QString error = QStringLiteral("stale");
    const ClusterProfile back = ClusterProfile::fromJson(profile.name, profile.toJson(), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(back == profile);

    // Through the text of a file as well.
    const QByteArray text = QJsonDocument(profile.toJson()).toJson();
    const ClusterProfile fromText =
        ClusterProfile::fromJson(profile.name, QJsonDocument::fromJson(text).object(), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(fromText == profile);
}

void TestClusterProfile::writesDocumentedKeys()
{
    const QJsonObject json = everyFieldSet().toJson();
    QVERIFY(!json.contains(u"name")); // the name is the key of the profile in the file
    QCOMPARE(json.value(u"scheduler").toString(), QStringLiteral("pbs"));
    QCOMPARE(json.value(u"pbs_dialect").toString(), QStringLiteral("torque"));
    QCOMPARE(json.value(u"slurm_history").toString(), QStringLiteral("controller"));
    QCOMPARE(json.value(u"account").toString(), QStringLiteral("proj-42"));
    QCOMPARE(json.value(u"partition").toString(), QStringLiteral("gpu@server"));
    QCOMPARE(json.value(u"work_directory").toString(), QStringLiteral("/scratch/ada/torch deck"));
    QCOMPARE(json.value(u"modules").toArray(),
             QJsonArray({QStringLiteral("gcc/12.2"), QStringLiteral("cuda/12.1 cudnn"), QStringLiteral("λ 'quoted'")}));
    QCOMPARE(json.value(u"libtorch").toString(), QStringLiteral("/opt/libtorch-2.3"));
    QCOMPARE(json.value(u"trainer_binary").toString(), QStringLiteral("/home/ada/bin/torchdeck-train"));
    QCOMPARE(json.value(u"build_on").toString(), QStringLiteral("job"));
    QCOMPARE(json.value(u"build_cpus").toInt(), 16);
    QCOMPARE(json.value(u"log_patterns").toArray(),
             QJsonArray({QStringLiteral(R"(iter (?<step>\d+) cost (?<loss>\S+))")}));
    QCOMPARE(json.value(u"in_job_requeue").toString(), QStringLiteral("unknown")); // until torchdeck check finds out
    QCOMPARE(json.value(u"notify_command").toString(), QStringLiteral("curl -s -d @- https://chat.example/hook"));
    QCOMPARE(json.value(u"wait_notice_seconds").toInt(), 3600); // an hour's wait is news
    QCOMPARE(json.value(u"min_poll_seconds").toInt(), 10);      // what sites ask of squeue pollers
    QCOMPARE(json.value(u"reach").toArray(),
             QJsonArray({QStringLiteral("mahti=-p 22 -i ~/.ssh/id_mahti ada@mahti.csc.fi")}));
    QCOMPARE(everyFieldSet().reachArgs(QStringLiteral("mahti")),
             QStringLiteral("-p 22 -i ~/.ssh/id_mahti ada@mahti.csc.fi"));
    QVERIFY(everyFieldSet().reachArgs(QStringLiteral("puhti")).isEmpty());
    QCOMPARE(json.size(), 17);

    const QJsonObject sandboxJson = defaultProfile(sandbox).toJson();
    QCOMPARE(sandboxJson.value(u"scheduler").toString(), QStringLiteral("slurm"));
    QCOMPARE(sandboxJson.value(u"pbs_dialect").toString(), QStringLiteral("pbspro"));
    QCOMPARE(sandboxJson.value(u"slurm_history").toString(), QStringLiteral("completion-file"));
}

void TestClusterProfile::missingKeysKeepTheDefaultsOfTheName()
{
    QString error;
    QVERIFY(ClusterProfile::fromJson(sandbox, {}, &error) == defaultProfile(sandbox));
    QVERIFY(error.isEmpty());
    QVERIFY(ClusterProfile::fromJson(QStringLiteral("hpc"), {}, &error) == defaultProfile(QStringLiteral("hpc")));
    QVERIFY(error.isEmpty());

    const ClusterProfile box = ClusterProfile::fromJson(sandbox, parse(R"({"partition": "debug"})"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(box.partition, QStringLiteral("debug"));
    QCOMPARE(box.slurmHistory, SlurmHistory::CompletionFile);
    QCOMPARE(box.workDirectory, QStringLiteral("~/.torchdeck/sandbox"));

    const ClusterProfile other = ClusterProfile::fromJson(QStringLiteral("hpc"), parse(R"({"account": "a1"})"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(other.name, QStringLiteral("hpc"));
    QCOMPARE(other.account, QStringLiteral("a1"));
    QCOMPARE(other.slurmHistory, SlurmHistory::Accounting);
    QCOMPARE(other.workDirectory, QStringLiteral("~/.torchdeck"));

    // An empty list clears the modules (it is not "missing").
    const ClusterProfile noModules =
        ClusterProfile::fromJson(QStringLiteral("hpc"), parse(R"({"modules": []})"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(noModules.modules.isEmpty());
}

void TestClusterProfile::unknownKeysAreIgnored()
{
    QString error;
    const ClusterProfile p = ClusterProfile::fromJson(QStringLiteral("hpc"), parse(R"({
        "scheduler": "pbs",
        "pbs_dialect": "torque",
        "gpu_type": "a100",
        "future": {"nested": [1, 2, {"x": null}]},
        "retries": 3,
        "modules": ["gcc"]
    })"),
                                                      &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(p.scheduler, SchedulerKind::Pbs);
    QCOMPARE(p.pbsDialect, PbsDialect::Torque);
    QCOMPARE(p.modules, QStringList{QStringLiteral("gcc")});
}

void TestClusterProfile::badValueNamesItsKey_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("mentions"); // what the error must name

    const char *textKeys[] = {"scheduler",      "pbs_dialect", "slurm_history",  "account", "partition",
                              "work_directory", "libtorch",    "trainer_binary", "build_on"};
    for (const char *key : textKeys) {
        const QString name = QString::fromLatin1(key);
        QTest::addRow("%s is a number", key) << QByteArray("{\"") + key + "\": 5}" << QStringList{name};
        QTest::addRow("%s is a list", key) << QByteArray("{\"") + key + "\": [\"a\"]}" << QStringList{name};
        QTest::addRow("%s is null", key) << QByteArray("{\"") + key + "\": null}" << QStringList{name};
        QTest::addRow("%s is true", key) << QByteArray("{\"") + key + "\": true}" << QStringList{name};
    }
    for (const char *key : {"modules", "log_patterns"}) {
        QTest::addRow("%s is text", key) << QByteArray("{\"") + key + "\": \"a\"}"
                                         << QStringList{QString::fromLatin1(key)};
        QTest::addRow("%s holds a number", key)
            << QByteArray("{\"") + key + "\": [\"a\", 1]}" << QStringList{QString::fromLatin1(key)};
    }
    QTest::addRow("unknown build_on") << QByteArray(R"({"build_on": "compute"})")
                                      << QStringList{QStringLiteral("build_on"), QStringLiteral("compute")};
    for (const char *cpus : {"0", "2.5", "\"4\"", "-1", "100000"})
        QTest::addRow("build_cpus %s", cpus)
            << QByteArray("{\"build_cpus\": ") + cpus + "}" << QStringList{QStringLiteral("build_cpus")};
    QTest::addRow("unknown scheduler") << QByteArray(R"({"scheduler": "sge"})")
                                       << QStringList{QStringLiteral("scheduler"), QStringLiteral("sge")};
    QTest::addRow("scheduler in capitals")
        << QByteArray(R"({"scheduler": "SLURM"})") << QStringList{QStringLiteral("scheduler"), QStringLiteral("SLURM")};
    QTest::addRow("empty scheduler") << QByteArray(R"({"scheduler": ""})") << QStringList{QStringLiteral("scheduler")};
    QTest::addRow("unknown pbs_dialect") << QByteArray(R"({"pbs_dialect": "openpbs-22"})")
                                         << QStringList{QStringLiteral("pbs_dialect"), QStringLiteral("openpbs-22")};
    QTest::addRow("unknown slurm_history") << QByteArray(R"({"slurm_history": "sacct"})")
                                           << QStringList{QStringLiteral("slurm_history"), QStringLiteral("sacct")};
    QTest::addRow("empty work_directory")
        << QByteArray(R"({"work_directory": ""})") << QStringList{QStringLiteral("work_directory")};
    QTest::addRow("modules is a line") << QByteArray(R"({"modules": "gcc cuda"})")
                                       << QStringList{QStringLiteral("modules")};
    QTest::addRow("modules is an object")
        << QByteArray(R"({"modules": {"gcc": 1}})") << QStringList{QStringLiteral("modules")};
    QTest::addRow("modules is a number") << QByteArray(R"({"modules": 3})") << QStringList{QStringLiteral("modules")};
    QTest::addRow("modules holds a number")
        << QByteArray(R"({"modules": ["gcc", 12]})") << QStringList{QStringLiteral("modules")};
    QTest::addRow("modules holds a list")
        << QByteArray(R"({"modules": [["gcc"]]})") << QStringList{QStringLiteral("modules")};
    QTest::addRow("modules holds null") << QByteArray(R"({"modules": [null]})")
                                        << QStringList{QStringLiteral("modules")};
}

void TestClusterProfile::badValueNamesItsKey()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, mentions);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    QVERIFY2(document.isObject(), qPrintable(parseError.errorString()));

    for (const QString &name : {QStringLiteral("hpc"), sandbox}) {
        QString error;
        ClusterProfile::fromJson(name, document.object(), &error);
        QVERIFY2(!error.isEmpty(), json.constData());
        QVERIFY2(error.startsWith(name + u':'), qPrintable(error)); // names the profile first
        for (const QString &word : mentions)
            QVERIFY2(error.contains(word), qPrintable(error + QStringLiteral(" lacks ") + word));
    }
}

void TestClusterProfile::clearsAnEarlierError()
{
    QString error = QStringLiteral("left from before");
    ClusterProfile::fromJson(QStringLiteral("hpc"), parse(R"({"scheduler": "slurm"})"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestClusterProfile::libtorchPrefix()
{
    ClusterProfile p = defaultProfile(QStringLiteral("hpc"));
    QCOMPARE(p.libtorchPrefix(), QString()); // "auto": find it on the cluster
    p.libtorch = QStringLiteral("/opt/libtorch");
    QCOMPARE(p.libtorchPrefix(), QStringLiteral("/opt/libtorch"));
    p.libtorch.clear();
    QCOMPARE(p.libtorchPrefix(), QString());
}

void TestClusterProfile::names()
{
    for (SchedulerKind kind : {SchedulerKind::Slurm, SchedulerKind::Pbs, SchedulerKind::Local})
        QCOMPARE(schedulerKindFromName(schedulerKindName(kind)), std::optional<SchedulerKind>(kind));
    QCOMPARE(schedulerKindName(SchedulerKind::Slurm), QStringLiteral("slurm"));
    QCOMPARE(schedulerKindName(SchedulerKind::Pbs), QStringLiteral("pbs"));
    QCOMPARE(schedulerKindName(SchedulerKind::Local), QStringLiteral("local"));
    QCOMPARE(schedulerKindFromName(QStringLiteral("sge")), std::nullopt);
    QCOMPARE(schedulerKindFromName(QString()), std::nullopt);

    for (SlurmHistory h : {SlurmHistory::Accounting, SlurmHistory::CompletionFile, SlurmHistory::Controller})
        QCOMPARE(slurmHistoryFromName(slurmHistoryName(h)), std::optional<SlurmHistory>(h));
    QCOMPARE(slurmHistoryName(SlurmHistory::CompletionFile), QStringLiteral("completion-file"));
    QCOMPARE(slurmHistoryFromName(QStringLiteral("completion_file")), std::nullopt);
}

void TestClusterProfile::commands_data()
{
    QTest::addColumn<ClusterProfile>("profile");
    QTest::addColumn<QString>("stateDir");
    QTest::addColumn<SchedulerCommands>("expected");

    ClusterProfile p = defaultProfile(QStringLiteral("hpc"));
    QTest::addRow("slurm, accounting") << p << QString() << SchedulerCommands::slurm(SlurmHistory::Accounting);
    QTest::addRow("sandbox: completion file")
        << defaultProfile(sandbox) << QString() << SchedulerCommands::slurm(SlurmHistory::CompletionFile);
    p.slurmHistory = SlurmHistory::Controller;
    QTest::addRow("slurm, controller") << p << QString() << SchedulerCommands::slurm(SlurmHistory::Controller);
    p.scheduler = SchedulerKind::Pbs;
    QTest::addRow("pbs pro") << p << QString() << SchedulerCommands::pbs(PbsDialect::PbsPro);
    p.pbsDialect = PbsDialect::Torque;
    QTest::addRow("torque") << p << QString() << SchedulerCommands::pbs(PbsDialect::Torque);
    p.scheduler = SchedulerKind::Local;
    QTest::addRow("local") << p << QStringLiteral("/tmp/td state")
                           << SchedulerCommands::local(QStringLiteral("/tmp/td state"));
}

void TestClusterProfile::commands()
{
    QFETCH(ClusterProfile, profile);
    QFETCH(QString, stateDir);
    QFETCH(SchedulerCommands, expected);
    const SchedulerCommands actual = profile.commands(stateDir);
    const QStringList ids{QStringLiteral("17"), QStringLiteral("18")};
    QCOMPARE(actual.kind(), expected.kind());
    QCOMPARE(actual.submit(QStringLiteral("/w/job-1.sh")).argv, expected.submit(QStringLiteral("/w/job-1.sh")).argv);
    QCOMPARE(actual.query(ids).argv, expected.query(ids).argv);
    QCOMPARE(actual.queryFinished(ids).argv, expected.queryFinished(ids).argv);
    QCOMPARE(actual.cancel(ids), expected.cancel(ids));
}

// The rows above only prove something if the schedulers they expect differ in what they run.
void TestClusterProfile::commandRowsAreDistinguishable()
{
    const QStringList ids{QStringLiteral("17")};
    const auto signature = [&](const SchedulerCommands &c) {
        return c.submit(QStringLiteral("/w/job-1.sh")).argv + c.query(ids).argv + c.queryFinished(ids).argv;
    };
    const QList<QStringList> all{
        signature(SchedulerCommands::slurm(SlurmHistory::Accounting)),
        signature(SchedulerCommands::slurm(SlurmHistory::CompletionFile)),
        signature(SchedulerCommands::slurm(SlurmHistory::Controller)),
        signature(SchedulerCommands::pbs(PbsDialect::PbsPro)),
        signature(SchedulerCommands::pbs(PbsDialect::Torque)),
        signature(SchedulerCommands::local(QStringLiteral("/tmp/a"))),
        signature(SchedulerCommands::local(QStringLiteral("/tmp/b"))),
    };
    for (qsizetype i = 0; i < all.size(); ++i) {
        for (qsizetype j = i + 1; j < all.size(); ++j)
            QVERIFY2(all.at(i) != all.at(j), qPrintable(QStringLiteral("rows %1 and %2 alike").arg(i).arg(j)));
    }
}

void TestClusterProfile::reachLines()
{
    const ReachLine line = parseReachLine(QStringLiteral("mahti= -p 22 ada@mahti.csc.fi=x "));
    QCOMPARE(line.cluster, QStringLiteral("mahti"));
    QCOMPARE(line.sshArgs, QStringLiteral("-p 22 ada@mahti.csc.fi=x")); // the first '=' splits
    QVERIFY(parseReachLine(QStringLiteral("=-p 22 host")).cluster.isEmpty());
    QVERIFY(parseReachLine(QStringLiteral("no equals sign")).cluster.isEmpty());
    QVERIFY(parseReachLine(QStringLiteral("puhti=")).sshArgs.isEmpty());

    const QStringList before{QStringLiteral("mahti=old@mahti"), QStringLiteral("lumi=me@lumi")};
    QCOMPARE(mergeReach(before, {QStringLiteral("mahti=new@mahti"), QStringLiteral("roihu=me@roihu")}),
             QStringList({QStringLiteral("lumi=me@lumi"), QStringLiteral("mahti=new@mahti"),
                          QStringLiteral("roihu=me@roihu")}));
    QCOMPARE(mergeReach(before, {QStringLiteral("lumi=")}), QStringList({QStringLiteral("mahti=old@mahti")}));
    QCOMPARE(mergeReach(before, {}), before);
}

void TestClusterProfile::moduleLoadLinesAreQuoted()
{
    ClusterProfile profile = defaultProfile(QStringLiteral("hpc"));
    profile.modules = {QStringLiteral("gcc/12"), QStringLiteral("cuda 12; rm -rf ~")};
    QCOMPARE(profile.moduleLoadLines(),
             (QStringList{QStringLiteral("module load gcc/12"), QStringLiteral("module load 'cuda 12; rm -rf ~'")}));
}

void TestClusterProfile::shapeFreshForHalfADay()
{
    ClusterProfile p;
    QVERIFY(!p.shapeIsFresh()); // never read
    p.partitions.append(PartitionCaps{QStringLiteral("short"), 0, 4, 1800, 2, 0});
    p.partitionsReadAt = QDateTime::currentDateTimeUtc().addSecs(-11 * 3600);
    QVERIFY(p.shapeIsFresh());
    p.partitionsReadAt = QDateTime::currentDateTimeUtc().addSecs(-13 * 3600);
    QVERIFY(!p.shapeIsFresh());
    const ClusterProfile bare = p.withoutShape();
    QVERIFY(bare.partitions.isEmpty() && !bare.partitionsReadAt.isValid());
    QVERIFY(!bare.caps().partition(QStringLiteral("short"))); // nothing to check a job against
    QCOMPARE(bare.name, p.name);
    p.scheduler = SchedulerKind::Local; // this machine: nothing to read
    QVERIFY(p.shapeIsFresh());
}

TORCHDECK_TEST_MAIN(TestClusterProfile)
#include "tst_clusterprofile.moc"
