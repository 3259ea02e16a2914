// Renders specs full of hostile values and RUNS the scripts under bash, with srun/mpirun/scontrol/qrerun/
// module/bash replaced by shell functions that record their argv (NUL-separated). Every value must come back
// byte for byte, and no $(...) or backtick in them may run: each would create a CANARY_* file.
#include "core/jobs/jobscript.h"
#include "fakeshell.h"
#include "testmain.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using testing::hostile;
using testing::ShellRun;

class TestHostileScript : public QObject {
    Q_OBJECT
private slots:
    void init();
    void slurmSrunTrainer();
    void slurmPerNodeCustomCommand();
    void perNodeSignalKeepsRankZerosStop();
    void customCommandGetsTheRankVariables_data();
    void customCommandGetsTheRankVariables();
    void pbsMpirunWithNodefileAndTimer();
    void localTrainerAtHostilePath();
    void signalIsForwardedToTheStep();
    void hostileDirectiveValuesAreRejected_data();
    void hostileDirectiveValuesAreRejected();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_wd;

    JobSpec baseSpec() const;
    JobSpec customSpec(LaunchMethod launch) const; // a hostile custom command, no container, no restarts
    ShellRun runScript(const QString &script, const QStringList &env, QProcess *started = nullptr)
    {
        return testing::runWithFakes(m_dir->path(), script, env, started);
    }
    void verifyNoCanary();
};

void TestHostileScript::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_wd = m_dir->path() + QStringLiteral("/wd ") + hostile(QStringLiteral("wd"));
    QVERIFY(QDir().mkpath(m_wd));
}

JobSpec TestHostileScript::baseSpec() const
{
    JobSpec s;
    s.name = QStringLiteral("hostile");
    s.tasksPerNode = 2;
    s.wallTimeSeconds = 3600;
    s.workingDirectory = m_wd;
    s.modules = {hostile(QStringLiteral("module"))};
    s.environment = {{QStringLiteral("TEST_ONE"), hostile(QStringLiteral("env1"))},
                     {QStringLiteral("TEST_TWO"), QString()}};
    s.trainerPath =
        m_dir->path() + QStringLiteral("/bin ") + hostile(QStringLiteral("bin")) + QStringLiteral("/torchdeck-train");
    // Values the trainer's parser takes as they are (validateJobSpec asks it), each a hostile word of its own.
    s.trainerArgs = {QStringLiteral("--metrics"),
                     hostile(QStringLiteral("arg")),
                     QStringLiteral("--checkpoint-dir=$(touch CANARY_eq)"),
                     QStringLiteral("--resume"),
                     QStringLiteral("a\nb"),
                     QStringLiteral("--data"),
                     QStringLiteral("fashion-mnist:%j %x %%"),
                     QStringLiteral("--metrics"),
                     QStringLiteral("'")};
    s.launcherOptions = {hostile(QStringLiteral("opt"))};
    s.container = {ContainerRuntime::Apptainer, hostile(QStringLiteral("image")), {hostile(QStringLiteral("copt"))}};
    s.outputPath = m_dir->path() + QStringLiteral("/%x-%j.out");
    s.requeue = true;
    return s;
}

JobSpec TestHostileScript::customSpec(LaunchMethod launch) const
{
    JobSpec s = baseSpec();
    s.launch = launch;
    s.commandKind = CommandKind::Custom;
    s.customCommand = hostile(QStringLiteral("custom"));
    s.container = {};
    s.requeue = false;
    s.checkpointSignalEnabled = false;
    return s;
}

void TestHostileScript::verifyNoCanary()
{
    const QString canary = testing::findCanary(m_dir->path());
    QVERIFY2(canary.isEmpty(), qPrintable(QStringLiteral("executed: ") + canary));
}

void TestHostileScript::slurmSrunTrainer()
{
    const JobSpec spec = baseSpec();
    const ScriptResult r = renderSlurmScript(spec, ClusterCaps());
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    const ShellRun run =
        runScript(r.script, {QStringLiteral("SLURM_JOB_ID=42"), QStringLiteral("SLURM_JOB_NODELIST=node[1-2]"),
                             QStringLiteral("FAKE_EXIT=75")});
    QVERIFY2(run.exitCode == 75, run.stderrText.constData());
    verifyNoCanary();
    QCOMPARE(run.records.size(), 3); // module, srun, scontrol requeue
    QCOMPARE(run.records[0].mid(0, 2), (QStringList{QStringLiteral("module"), QStringLiteral("load")}));
    QCOMPARE(run.records[0][2], spec.modules[0]);
    const QStringList expected =
        QStringList{QStringLiteral("srun"), QStringLiteral("--ntasks-per-node=2")} + spec.launcherOptions +
        QStringList{QStringLiteral("apptainer"), QStringLiteral("exec")} + spec.container.options +
        QStringList{spec.container.image, spec.trainerPath} + spec.trainerArgs;
    QCOMPARE(run.records[1].mid(0, expected.size()), expected);
    QCOMPARE(run.records[1].mid(expected.size()),
             (QStringList{QStringLiteral("PWD=") + m_wd, QStringLiteral("ONE=") + spec.environment[0].value,
                          QStringLiteral("TWO="), QStringLiteral("MASTER_ADDR=node1"),
                          QStringLiteral("MASTER_PORT=15042")}));
    QCOMPARE(run.records[2].mid(0, 3),
             (QStringList{QStringLiteral("scontrol"), QStringLiteral("requeue"), QStringLiteral("42")}));
}

void TestHostileScript::slurmPerNodeCustomCommand()
{
    JobSpec spec = customSpec(LaunchMethod::SrunPerNodeLauncher);
    spec.perNodeLauncher = hostile(QStringLiteral("torchrun"));
    const ScriptResult r = renderSlurmScript(spec, ClusterCaps());
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    const ShellRun run =
        runScript(r.script, {QStringLiteral("SLURM_JOB_ID=7"), QStringLiteral("SLURM_JOB_NODELIST=n1")});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    verifyNoCanary();
    QCOMPARE(run.records.size(), 2);
    const QStringList expected = QStringList{QStringLiteral("srun"), QStringLiteral("--ntasks-per-node=1"),
                                             QStringLiteral("--cpus-per-task=2")} +
                                 spec.launcherOptions +
                                 QProcess::splitCommand(spec.perNodeLauncher) + // "python -m ...": its words
                                 QStringList{QStringLiteral("--nnodes=1"),
                                             QStringLiteral("--nproc_per_node=2"),
                                             QStringLiteral("--rdzv_backend=c10d"),
                                             QStringLiteral("--rdzv_endpoint=node1:15007"),
                                             QStringLiteral("--rdzv_id=7"),
                                             QStringLiteral("--no_python"),
                                             QStringLiteral("bash"),
                                             QStringLiteral("-c"),
                                             spec.customCommand,
                                             QStringLiteral("PWD=") + m_wd};
    QCOMPARE(run.records[1].mid(0, expected.size()), expected);
}

void TestHostileScript::perNodeSignalKeepsRankZerosStop()
{
    // torchrun exits 1 however its workers stopped: the workers' wrapper leaves the script's stop file when
    // rank 0 exits with the requeue code, and the script then exits with that code.
    JobSpec spec = customSpec(LaunchMethod::SrunPerNodeLauncher);
    spec.checkpointSignalEnabled = true; // INT, the default under a per-node launcher
    const ScriptResult r = renderSlurmScript(spec, ClusterCaps());
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    QVERIFY(r.script.contains(u"#SBATCH --signal=INT@300\n"));
    const ShellRun run = runScript(r.script, {QStringLiteral("SLURM_JOB_ID=7"), QStringLiteral("SLURM_JOB_NODELIST=n1"),
                                              QStringLiteral("FAKE_EXIT=1")});
    QCOMPARE(run.exitCode, 1); // no stop file: torchrun's own code
    verifyNoCanary();
    QCOMPARE(run.records.size(), 2);
    const QStringList srun = run.records[1];
    const qsizetype worker = srun.indexOf(QStringLiteral("--no_python")) + 1;
    QVERIFY(worker > 0);
    const QString stopFile = m_wd + QStringLiteral("/.torchdeck-stop-7");
    QCOMPARE(srun.mid(worker + 3, 3), (QStringList{QStringLiteral("torchdeck-rank"), spec.customCommand, stopFile}));
    QCOMPARE(srun.mid(worker, 2), (QStringList{QStringLiteral("bash"), QStringLiteral("-c")}));

    // The wrapper itself, run by the real bash as a worker would: only rank 0's exit code 75 leaves the file.
    const auto runWorker = [&](const QString &rank, const QString &command) {
        QProcess bash;
        bash.setEnvironment({QStringLiteral("PATH=/usr/bin:/bin"), QStringLiteral("RANK=") + rank});
        bash.start(QStringLiteral("/bin/bash"),
                   {QStringLiteral("-c"), srun.at(worker + 2), QStringLiteral("torchdeck-rank"), command, stopFile});
        return bash.waitForFinished(10000) ? bash.exitCode() : -1;
    };
    QCOMPARE(runWorker(QStringLiteral("1"), QStringLiteral("exit 75")), 75);
    QVERIFY(!QFile::exists(stopFile));
    QCOMPARE(runWorker(QStringLiteral("0"), QStringLiteral("exit 3")), 3);
    QVERIFY(!QFile::exists(stopFile));
    QCOMPARE(runWorker(QStringLiteral("0"), QStringLiteral("exit 75")), 75);
    QVERIFY(QFile::exists(stopFile));
}

void TestHostileScript::customCommandGetsTheRankVariables_data()
{
    QTest::addColumn<int>("launch");
    QTest::addColumn<QStringList>("rankEnv"); // what srun or mpirun gives the 4th rank (2nd on node 2)
    QTest::newRow("srun") << int(LaunchMethod::Srun)
                          << QStringList{QStringLiteral("SLURM_PROCID=3"), QStringLiteral("SLURM_LOCALID=1"),
                                         QStringLiteral("SLURM_NODEID=1")};
    QTest::newRow("mpirun") << int(LaunchMethod::Mpirun)
                            << QStringList{QStringLiteral("OMPI_COMM_WORLD_RANK=3"),
                                           QStringLiteral("OMPI_COMM_WORLD_LOCAL_RANK=1")};
}

void TestHostileScript::customCommandGetsTheRankVariables()
{
    QFETCH(int, launch);
    QFETCH(QStringList, rankEnv);
    JobSpec spec = customSpec(LaunchMethod(launch));
    spec.nodes = 2;
    const ScriptResult r = renderSlurmScript(spec, ClusterCaps());
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    const ShellRun run =
        runScript(r.script, {QStringLiteral("SLURM_JOB_ID=7"), QStringLiteral("SLURM_JOB_NODELIST=node[1-2]")});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    verifyNoCanary();
    const QStringList launcher = run.records.value(1);
    const qsizetype at = launcher.indexOf(QStringLiteral("torchdeck-rank"));
    QVERIFY2(at >= 3, qPrintable(launcher.join(u' ')));
    QCOMPARE(launcher.mid(at - 2, 2).first(), QStringLiteral("-c"));
    QCOMPARE(launcher[at + 1], spec.customCommand); // the user's command, byte for byte

    // The rank's shell as srun or mpirun starts it, with a command that prints what it was given.
    QProcess rank;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &pair : rankEnv)
        env.insert(pair.section(u'=', 0, 0), pair.section(u'=', 1));
    rank.setProcessEnvironment(env);
    rank.start(QStringLiteral("bash"),
               {QStringLiteral("-c"), launcher[at - 1], QStringLiteral("torchdeck-rank"),
                QStringLiteral(
                    "printf '%s ' \"$RANK\" \"$LOCAL_RANK\" \"$NODE_RANK\" \"$WORLD_SIZE\" \"$LOCAL_WORLD_SIZE\"")});
    QVERIFY(rank.waitForFinished(10000));
    QCOMPARE(rank.readAllStandardOutput(), QByteArray("3 1 1 4 2 "));
}

void TestHostileScript::pbsMpirunWithNodefileAndTimer()
{
    JobSpec spec = baseSpec();
    spec.nodes = 2;
    spec.launch = LaunchMethod::Mpirun;
    spec.container = {};
    spec.outputPath =
        m_dir->path() + QStringLiteral("/log ") + hostile(QStringLiteral("log")) + QStringLiteral(" %j.out");
    spec.wallTimeSeconds = 3; // the timer sends USR2 after 1 s; the fake mpirun waits for it
    spec.signalLeadSeconds = 2;
    spec.checkpointSignal = QStringLiteral("USR2");
    const QString nodefile = m_dir->path() + QStringLiteral("/nodefile");
    QFile nodes(nodefile);
    QVERIFY(nodes.open(QIODevice::WriteOnly));
    nodes.write("nodeA\nnodeA\nnodeB\nnodeB\n");
    nodes.close();
    const ScriptResult r = renderPbsScript(spec, ClusterCaps());
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    const ShellRun run =
        runScript(r.script, {QStringLiteral("PBS_JOBID=77.server"), QStringLiteral("PBS_NODEFILE=") + nodefile,
                             QStringLiteral("FAKE_WAIT=") + m_dir->path() + QStringLiteral("/ready"),
                             QStringLiteral("FAKE_EXIT=75")});
    QVERIFY2(run.exitCode == 75, run.stderrText.constData());
    verifyNoCanary();
    QVERIFY(QFile::exists(expandLogPath(spec.outputPath, QStringLiteral("77.server"), spec.name)));
    QCOMPARE(run.records.size(), 4); // module, mpirun, got-USR2, qrerun
    const QStringList expected =
        QStringList{QStringLiteral("mpirun"),      QStringLiteral("-np"),         QStringLiteral("4"),
                    QStringLiteral("--map-by"),    QStringLiteral("ppr:2:node"),  QStringLiteral("--bind-to"),
                    QStringLiteral("none"),        QStringLiteral("--hostfile"),  nodefile,
                    QStringLiteral("-x"),          QStringLiteral("MASTER_ADDR"), QStringLiteral("-x"),
                    QStringLiteral("MASTER_PORT"), QStringLiteral("-x"),          QStringLiteral("TEST_ONE"),
                    QStringLiteral("-x"),          QStringLiteral("TEST_TWO")} +
        spec.launcherOptions + QStringList{spec.trainerPath} + spec.trainerArgs +
        QStringList{QStringLiteral("PWD=") + m_wd};
    QCOMPARE(run.records[1].mid(0, expected.size()), expected);
    QVERIFY(run.records[1].contains(QStringLiteral("MASTER_ADDR=nodeA")));
    QVERIFY(run.records[1].contains(QStringLiteral("MASTER_PORT=15077")));
    QCOMPARE(run.records[2].value(0), QStringLiteral("got-USR2"));
    QCOMPARE(run.records[3].mid(0, 2), (QStringList{QStringLiteral("qrerun"), QStringLiteral("77.server")}));
    QFile count(m_wd + QStringLiteral("/.torchdeck-restarts-77.server"));
    QVERIFY(count.open(QIODevice::ReadOnly));
    QCOMPARE(count.readAll(), QByteArray("1\n"));
}

void TestHostileScript::localTrainerAtHostilePath()
{
    JobSpec spec = baseSpec();
    spec.launch = LaunchMethod::Local;
    spec.container = {};
    spec.modules = {};
    spec.outputPath = QStringLiteral("out ") + hostile(QStringLiteral("out")) + QStringLiteral(".log"); // under the wd
    // A real executable at the hostile path: it records its argv, and prints to the log.
    QVERIFY(QDir().mkpath(QFileInfo(spec.trainerPath).path()));
    QFile trainer(spec.trainerPath);
    QVERIFY(trainer.open(QIODevice::WriteOnly));
    trainer.write("#!/bin/bash\nprintf '%s\\0' \"$0\" \"$@\" \"PWD=$PWD\" \"ONE=$TEST_ONE\" '@@END@@' "
                  ">>\"$FAKE_TRACE\"\n"
                  "echo trainer-output\n");
    trainer.close();
    trainer.setPermissions(trainer.permissions() | QFileDevice::ExeOwner);
    const ScriptResult r = renderLocalScript(spec);
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    const ShellRun run = runScript(r.script, {});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    verifyNoCanary();
    QCOMPARE(run.records.size(), 1);
    const QStringList expected =
        QStringList{spec.trainerPath, QStringLiteral("--nproc-per-node=2")} + spec.trainerArgs +
        QStringList{QStringLiteral("PWD=") + m_wd, QStringLiteral("ONE=") + spec.environment[0].value};
    QCOMPARE(run.records[0], expected);
    QFile log(m_wd + u'/' + spec.outputPath);
    QVERIFY2(log.open(QIODevice::ReadOnly), qPrintable(log.fileName()));
    QCOMPARE(log.readAll(), QByteArray("trainer-output\n"));
}

void TestHostileScript::signalIsForwardedToTheStep()
{
    JobSpec spec = baseSpec();
    spec.container = {};
    spec.checkpointSignal = QStringLiteral("USR2");
    const ScriptResult r = renderSlurmScript(spec, ClusterCaps());
    QVERIFY(r.ok());
    const QString ready = m_dir->path() + QStringLiteral("/ready");
    QProcess bash;
    runScript(r.script,
              {QStringLiteral("SLURM_JOB_ID=5"), QStringLiteral("SLURM_JOB_NODELIST=n1"),
               QStringLiteral("SLURM_RESTART_COUNT=3"), QStringLiteral("FAKE_WAIT=") + ready,
               QStringLiteral("FAKE_EXIT=75")},
              &bash);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(ready), 10000);
    // As `scancel --signal=USR2 --batch` would: to the batch shell only.
    QCOMPARE(QProcess::execute(QStringLiteral("kill"), {QStringLiteral("-USR2"), QString::number(bash.processId())}),
             0);
    QVERIFY(bash.waitForFinished(10000));
    QCOMPARE(bash.exitCode(), 75);
    QVERIFY2(bash.readAllStandardError().contains("not requeueing job 5: 3 restarts done"), "restart limit ignored");
    verifyNoCanary();
}

void TestHostileScript::hostileDirectiveValuesAreRejected_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<int>("scheduler");
    for (const auto scheduler : {SchedulerKind::Slurm, SchedulerKind::Pbs}) {
        const int s = int(scheduler);
        const QByteArray prefix = scheduler == SchedulerKind::Slurm ? "slurm " : "pbs ";
        for (const char *field : {"name", "partition", "account", "extraDirectives[0]", "dependencies[0].jobIds"})
            QTest::addRow("%s%s", prefix.constData(), field) << QString::fromUtf8(field) << s;
    }
    QTest::addRow("slurm outputPath") << QStringLiteral("outputPath") << int(SchedulerKind::Slurm);
    QTest::addRow("slurm errorPath") << QStringLiteral("errorPath") << int(SchedulerKind::Slurm);
}

void TestHostileScript::hostileDirectiveValuesAreRejected()
{
    QFETCH(QString, field);
    QFETCH(int, scheduler);
    JobSpec spec = baseSpec();
    spec.container = {};
    ClusterCaps caps;
    caps.scheduler = SchedulerKind(scheduler);
    spec.launch = LaunchMethod::Mpirun; // valid on both
    const QString bad = hostile(QStringLiteral("directive"));
    if (field == u"name")
        spec.name = bad;
    else if (field == u"partition")
        spec.partition = bad;
    else if (field == u"account")
        spec.account = bad;
    else if (field == u"extraDirectives[0]")
        spec.extraDirectives = {bad};
    else if (field == u"dependencies[0].jobIds")
        spec.dependencies = {{DependencyKind::AfterOk, {bad}}};
    else if (field == u"outputPath")
        spec.outputPath = QStringLiteral("/tmp/") + QString(bad).remove(u'%');
    else
        spec.errorPath = QStringLiteral("/tmp/") + bad;
    const ScriptResult r = renderJobScript(spec, caps);
    QVERIFY(!r.ok());
    QVERIFY(r.script.isEmpty());
    QCOMPARE(r.errors.size(), 1);
    QCOMPARE(r.errors[0].field, field);
}

TORCHDECK_TEST_MAIN(TestHostileScript)
#include "tst_hostilescript.moc"
