// parseJobOptions: the cluster, the job options that set the spec's fields, and bad command lines. The
// trainer's options and job files are in tst_joboptionsfiles.cpp.
#include "joboptionstest.h"
#include "testmain.h"

#include <QJsonArray>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::term;
using namespace torchdeck::term::testing;

class TestJobOptions : public QObject {
    Q_OBJECT
private slots:
    void clusterIsThePositional();
    void oneClusterOnly();
    void optionSetsItsField_data();
    void optionSetsItsField();
    void wallTimes_data();
    void wallTimes();
    void malformedWallTime_data();
    void malformedWallTime();
    void environmentKeptVerbatim_data();
    void environmentKeptVerbatim();
    void badEnvironment_data();
    void badEnvironment();
    void badContainer_data();
    void badContainer();
    void unknownOptions_data();
    void unknownOptions();
    void missingValues_data();
    void missingValues();
    void badValues_data();
    void badValues();
    void commandFlagsAndOptions();
    void validationErrorsNameTheirOptions();
};

void TestJobOptions::clusterIsThePositional()
{
    const JobOptions first = parseJobOptions(words("hpc --nodes 2"));
    QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
    QCOMPARE(first.cluster, cluster);
    QCOMPARE(first.spec.nodes, 2);

    const JobOptions last = parseJobOptions(words("--nodes 2 --epochs 3 hpc"));
    QVERIFY2(last.error.isEmpty(), qPrintable(last.error));
    QCOMPARE(last.cluster, cluster);
    QCOMPARE(last.spec.trainerArgs, words("--epochs 3"));

    // No cluster is no error here; the command asks which one.
    const JobOptions none = parseJobOptions(words("--nodes 2"));
    QVERIFY2(none.error.isEmpty(), qPrintable(none.error));
    QVERIFY(none.cluster.isEmpty());

    const JobOptions nothing = parseJobOptions({});
    QVERIFY2(nothing.error.isEmpty(), qPrintable(nothing.error));
    QCOMPARE(json(nothing.spec), json(plain()));
}

void TestJobOptions::oneClusterOnly()
{
    const JobOptions two = parseJobOptions(words("hpc other"));
    QVERIFY(!two.error.isEmpty());
    QVERIFY2(two.error.contains(u"'other'"), qPrintable(two.error));

    // A value that was meant for a flag the parser does not know takes no one by surprise.
    const JobOptions stray = parseJobOptions(words("hpc --nodes 2 4"));
    QVERIFY2(stray.error.contains(u"'4'"), qPrintable(stray.error));
}

void TestJobOptions::optionSetsItsField_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<JobSpec>("expected");
    const auto row = [](const char *name, const QStringList &args, auto change) {
        JobSpec spec = plain();
        change(spec);
        QTest::addRow("%s", name) << args << spec;
    };
    const auto s = [](const char *text) { return QString::fromUtf8(text); };
    row("--name", {s("--name"), s("mnist-long")}, [&](JobSpec &j) { j.name = s("mnist-long"); });
    row("--nodes", words("--nodes 3"), [](JobSpec &j) { j.nodes = 3; });
    row("--tasks-per-node", words("--tasks-per-node 4"), [](JobSpec &j) { j.tasksPerNode = 4; });
    row("--gpus-per-node", words("--gpus-per-node 2"), [](JobSpec &j) { j.gpusPerNode = 2; });
    row("--gpus-per-task", words("--gpus-per-task 1"), [](JobSpec &j) { j.gpusPerTask = 1; });
    row("--gpu-type", words("--gpu-type a100"), [](JobSpec &j) { j.gpuType = QStringLiteral("a100"); });
    row("--cpus-per-task", words("--cpus-per-task 8"), [](JobSpec &j) { j.cpusPerTask = 8; });
    row("--mem", words("--mem 16G"), [&](JobSpec &j) { j.memory = s("16G"); });
    row("--time", words("--time 01:30:00"), [](JobSpec &j) { j.wallTimeSeconds = 5400; });
    row("--partition", words("--partition debug"), [&](JobSpec &j) { j.partition = s("debug"); });
    row("--queue", words("--queue workq"), [&](JobSpec &j) { j.partition = s("workq"); });
    row("--queue after --partition", words("--partition debug --queue workq"),
        [&](JobSpec &j) { j.partition = s("workq"); });
    row("--account", words("--account proj-42"), [&](JobSpec &j) { j.account = s("proj-42"); });
    row("--workdir", {s("--workdir"), s("/scratch/ada/my runs")},
        [&](JobSpec &j) { j.workingDirectory = s("/scratch/ada/my runs"); });
    row("--launch mpirun", words("--launch mpirun"), [](JobSpec &j) { j.launch = LaunchMethod::Mpirun; });
    row("--launch srun-per-node", words("--launch srun-per-node"),
        [](JobSpec &j) { j.launch = LaunchMethod::SrunPerNodeLauncher; });
    row("--launch local", words("--launch local"), [](JobSpec &j) { j.launch = LaunchMethod::Local; });
    row("--per-node-launcher", {s("--per-node-launcher"), s("torchrun --standalone")},
        [&](JobSpec &j) { j.perNodeLauncher = s("torchrun --standalone"); });
    row("--signal", words("--signal USR1"), [&](JobSpec &j) { j.checkpointSignal = s("USR1"); });
    row("--signal-lead", words("--signal-lead 120"), [](JobSpec &j) { j.signalLeadSeconds = 120; });
    row("--max-restarts", words("--max-restarts 5"), [](JobSpec &j) { j.maxRestarts = 5; });
    row("--master-port", words("--master-port 29500"), [](JobSpec &j) { j.masterPort = 29500; });
    row("--module, in order", {s("--module"), s("gcc/12"), s("--module"), s("cuda/12.1 cudnn/8")}, [&](JobSpec &j) {
        j.modules = {s("gcc/12"), s("cuda/12.1 cudnn/8")};
    });
    row("--launcher-option, in order", words("--launcher-option --mca --launcher-option btl"),
        [&](JobSpec &j) { j.launcherOptions = words("--mca btl"); });
    row("--requeue", words("--requeue"), [](JobSpec &j) { j.requeue = true; });
    row("--oversubscribe", words("--oversubscribe"), [](JobSpec &j) { j.oversubscribe = true; });
    row("--no-checkpoint-signal", words("--no-checkpoint-signal"),
        [](JobSpec &j) { j.checkpointSignalEnabled = false; });
    row("--container apptainer", words("--container apptainer:/images/torch.sif"), [&](JobSpec &j) {
        j.container = {ContainerRuntime::Apptainer, s("/images/torch.sif"), {}};
    });
    row("--container singularity", words("--container singularity:docker://pytorch/pytorch:2.3"), [&](JobSpec &j) {
        j.container = {ContainerRuntime::Singularity, s("docker://pytorch/pytorch:2.3"), {}};
    });
    row("--container shifter", words("--container shifter:docker:nvcr.io/nvidia/pytorch:24.01"), [&](JobSpec &j) {
        j.container = {ContainerRuntime::Shifter, s("docker:nvcr.io/nvidia/pytorch:24.01"), {}};
    });
    const QString command = s("python train.py --lr 0.1 --out 'a b' \"$HOME\" $(hostname) | tee log; exit 3");
    row("--command", {s("--command"), command}, [&](JobSpec &j) {
        j.commandKind = CommandKind::Custom;
        j.customCommand = command;
    });
    row("--command with trainer options", {s("--command"), s("./run.sh"), s("--epochs"), s("2")}, [&](JobSpec &j) {
        j.commandKind = CommandKind::Custom;
        j.customCommand = s("./run.sh");
        j.trainerArgs = words("--epochs 2");
    });
    row("many at once", words("--nodes 2 --tasks-per-node 4 --gpus-per-node 4 --time 2-00:00:00 --requeue --model ae"),
        [&](JobSpec &j) {
            j.name = s("train-ae");
            j.nodes = 2;
            j.tasksPerNode = 4;
            j.gpusPerNode = 4;
            j.wallTimeSeconds = 2 * 86400;
            j.requeue = true;
            j.trainerArgs = words("--model ae");
        });
    row("the last of a repeated option", words("--nodes 2 --nodes 5"), [](JobSpec &j) { j.nodes = 5; });
}

void TestJobOptions::optionSetsItsField()
{
    QFETCH(QStringList, args);
    QFETCH(JobSpec, expected);
    const JobOptions options = parse(args);
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.cluster, cluster);
    QCOMPARE(json(options.spec), json(expected));
    QVERIFY(options.spec == expected);
}

void TestJobOptions::wallTimes_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("seconds");
    QTest::addRow("minutes") << QStringLiteral("30") << qint64(1800);
    QTest::addRow("MM:SS") << QStringLiteral("5:30") << qint64(330);
    QTest::addRow("HH:MM:SS") << QStringLiteral("01:30:00") << qint64(5400);
    QTest::addRow("hours past a day") << QStringLiteral("48:00:00") << qint64(48 * 3600);
    QTest::addRow("D-HH") << QStringLiteral("2-12") << qint64(2 * 86400 + 12 * 3600);
    QTest::addRow("D-HH:MM:SS") << QStringLiteral("1-12:00:00") << qint64(86400 + 12 * 3600);
}

void TestJobOptions::wallTimes()
{
    QFETCH(QString, text);
    QFETCH(qint64, seconds);
    const JobOptions options = parse({QStringLiteral("--time"), text});
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.spec.wallTimeSeconds, seconds);
}

void TestJobOptions::malformedWallTime_data()
{
    QTest::addColumn<QString>("text");
    QTest::addRow("letters") << QStringLiteral("1h");
    QTest::addRow("zero") << QStringLiteral("0");
    QTest::addRow("sixty minutes") << QStringLiteral("1:60:00");
    QTest::addRow("empty") << QString();
    QTest::addRow("an option") << QStringLiteral("--nodes");
}

void TestJobOptions::malformedWallTime()
{
    QFETCH(QString, text);
    const JobOptions options = parse({QStringLiteral("--time"), text});
    QCOMPARE(options.error,
             QStringLiteral("--time wants a wall time like 30, 01:30:00 or 1-12:00:00, got '%1'").arg(text));
}

void TestJobOptions::environmentKeptVerbatim_data()
{
    QTest::addColumn<QString>("argument");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("value");
    QTest::addRow("plain") << QStringLiteral("OMP_NUM_THREADS=4") << QStringLiteral("OMP_NUM_THREADS")
                           << QStringLiteral("4");
    QTest::addRow("= in the value") << QStringLiteral("NCCL_OPTS=a=b==c") << QStringLiteral("NCCL_OPTS")
                                    << QStringLiteral("a=b==c");
    QTest::addRow("empty value") << QStringLiteral("EMPTY=") << QStringLiteral("EMPTY") << QString();
    QTest::addRow("spaces and quotes") << QStringLiteral("MSG= it's \"quoted\" ") << QStringLiteral("MSG")
                                       << QStringLiteral(" it's \"quoted\" ");
    QTest::addRow("expansions") << QStringLiteral("X=$(rm -rf ~) `id` ${HOME} $$ \\n") << QStringLiteral("X")
                                << QStringLiteral("$(rm -rf ~) `id` ${HOME} $$ \\n");
    QTest::addRow("control characters") << QStringLiteral("X=line1\nline2\ttab;|&<>*?") << QStringLiteral("X")
                                        << QStringLiteral("line1\nline2\ttab;|&<>*?");
    QTest::addRow("non-ASCII") << QStringLiteral("GREETING=grüß λ 日本") << QStringLiteral("GREETING")
                               << QStringLiteral("grüß λ 日本");
    QTest::addRow("starts like an option")
        << QStringLiteral("FLAGS=--nodes 4") << QStringLiteral("FLAGS") << QStringLiteral("--nodes 4");
}

void TestJobOptions::environmentKeptVerbatim()
{
    QFETCH(QString, argument);
    QFETCH(QString, name);
    QFETCH(QString, value);
    const JobOptions options = parse({QStringLiteral("--env"), argument, QStringLiteral("--env"),
                                      QStringLiteral("SECOND=2"), QStringLiteral("--nodes"), QStringLiteral("2")});
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.spec.nodes, 2); // the value took nothing after it
    QCOMPARE(options.spec.environment.size(), 2);
    QCOMPARE(options.spec.environment.at(0).name, name);
    QCOMPARE(options.spec.environment.at(0).value, value);
    QCOMPARE(options.spec.environment.at(1).name, QStringLiteral("SECOND"));
    QCOMPARE(options.spec.environment.at(1).value, QStringLiteral("2"));
}

void TestJobOptions::badEnvironment_data()
{
    QTest::addColumn<QString>("argument");
    QTest::addRow("no =") << QStringLiteral("OMP_NUM_THREADS");
    QTest::addRow("no name") << QStringLiteral("=4");
    QTest::addRow("empty") << QString();
}

void TestJobOptions::badEnvironment()
{
    QFETCH(QString, argument);
    const JobOptions options = parse({QStringLiteral("--env"), argument});
    QCOMPARE(options.error, QStringLiteral("--env wants NAME=VALUE, got '%1'").arg(argument));
}

void TestJobOptions::badContainer_data()
{
    QTest::addColumn<QString>("argument");
    QTest::addColumn<QString>("mentions");
    QTest::addRow("no runtime") << QStringLiteral("/images/torch.sif") << QStringLiteral("--container");
    QTest::addRow("empty runtime") << QStringLiteral(":/images/torch.sif") << QStringLiteral("--container");
    QTest::addRow("unknown runtime") << QStringLiteral("docker:pytorch/pytorch") << QStringLiteral("docker");
}

void TestJobOptions::badContainer()
{
    QFETCH(QString, argument);
    QFETCH(QString, mentions);
    const JobOptions options = parse({QStringLiteral("--container"), argument});
    QVERIFY(!options.error.isEmpty());
    QVERIFY2(options.error.contains(mentions), qPrintable(options.error));
}

void TestJobOptions::unknownOptions_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("option");
    QTest::addRow("with a value after it") << words("--bogus 4 --nodes 2") << QStringLiteral("--bogus");
    QTest::addRow("last") << words("--nodes 2 --bogus") << QStringLiteral("--bogus");
    QTest::addRow("single dash") << words("-n 2") << QStringLiteral("-n");
    QTest::addRow("= form of a job option") << words("--nodes=2") << QStringLiteral("--nodes=2");
    QTest::addRow("a command's flag not declared") << words("--json --nodes 2") << QStringLiteral("--json");
    QTest::addRow("a trainer flag the front does not know") << words("--warmup 3") << QStringLiteral("--warmup");
}

void TestJobOptions::unknownOptions()
{
    QFETCH(QStringList, args);
    QFETCH(QString, option);
    const JobOptions options = parse(args);
    QVERIFY(!options.error.isEmpty());
    QVERIFY2(options.error.startsWith(QStringLiteral("unknown option '%1'").arg(option)), qPrintable(options.error));
}

void TestJobOptions::missingValues_data()
{
    QTest::addColumn<QString>("option");
    const char *const valued[] = {"--job",
                                  "--command",
                                  "--env",
                                  "--container",
                                  "--trainer-arg",
                                  "--name",
                                  "--nodes",
                                  "--tasks-per-node",
                                  "--gpus-per-node",
                                  "--cpus-per-task",
                                  "--mem",
                                  "--time",
                                  "--partition",
                                  "--queue",
                                  "--account",
                                  "--workdir",
                                  "--launch",
                                  "--per-node-launcher",
                                  "--signal",
                                  "--signal-lead",
                                  "--max-restarts",
                                  "--master-port",
                                  "--module",
                                  "--launcher-option",
                                  "--model",
                                  "--epochs",
                                  "--lr",
                                  "--data"};
    for (const char *option : valued)
        QTest::addRow("%s", option) << QString::fromLatin1(option);
}

void TestJobOptions::missingValues()
{
    QFETCH(QString, option);
    const JobOptions options = parse({QStringLiteral("--nodes"), QStringLiteral("2"), option});
    QVERIFY(!options.error.isEmpty());
    QVERIFY2(options.error.contains(u'\'' + option + u'\''), qPrintable(options.error));
    QVERIFY2(options.error.contains(u"needs a value"), qPrintable(options.error));
}

void TestJobOptions::badValues_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("error");
    QTest::addRow("word for a number") << words("--nodes two")
                                       << QStringLiteral("--nodes wants a whole number, got 'two'");
    QTest::addRow("fraction") << words("--gpus-per-node 1.5")
                              << QStringLiteral("--gpus-per-node wants a whole number, got '1.5'");
    QTest::addRow("too big") << words("--master-port 99999999999")
                             << QStringLiteral("--master-port: expected an integer from 0 to 65535");
    QTest::addRow("an option for a number")
        << words("--max-restarts --requeue") << QStringLiteral("--max-restarts wants a whole number, got '--requeue'");
}

void TestJobOptions::badValues()
{
    QFETCH(QStringList, args);
    QFETCH(QString, error);
    QCOMPARE(parse(args).error, error);

    // What the job's own check refuses is named by the option that gave it.
    QCOMPARE(parse(words("--launch pdsh")).error, QStringLiteral("--launch: unknown value 'pdsh'"));
}

void TestJobOptions::commandFlagsAndOptions()
{
    const QSet<QString> flags{QStringLiteral("--json"), QStringLiteral("--dry-run")};
    const QSet<QString> valued{QStringLiteral("--out"), QStringLiteral("--after")};
    const JobOptions options = parseJobOptions(
        QStringList{QStringLiteral("--json"), cluster, QStringLiteral("--out"), QStringLiteral("job script.sh"),
                    QStringLiteral("--nodes"), QStringLiteral("2"), QStringLiteral("--after"),
                    QStringLiteral("--model"), QStringLiteral("--epochs"), QStringLiteral("3")},
        flags, valued);
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.cluster, cluster);
    QCOMPARE(options.flags, QSet<QString>{QStringLiteral("--json")}); // only those given
    QCOMPARE(options.values.size(), 2);
    QCOMPARE(options.values.value(QStringLiteral("--out")), QStringLiteral("job script.sh"));
    QCOMPARE(options.values.value(QStringLiteral("--after")),
             QStringLiteral("--model")); // a value, whatever it looks like
    QCOMPARE(options.spec.nodes, 2);
    QCOMPARE(options.spec.trainerArgs, words("--epochs 3"));
    QCOMPARE(options.spec.name, QStringLiteral("torchdeck-job"));

    const JobOptions none = parseJobOptions(words("hpc --nodes 2"), flags, valued);
    QVERIFY(none.error.isEmpty());
    QVERIFY(none.flags.isEmpty());
    QVERIFY(none.values.isEmpty());

    const JobOptions dangling = parseJobOptions(words("hpc --out"), flags, valued);
    QCOMPARE(dangling.error, QStringLiteral("--out needs a value"));
}

void TestJobOptions::validationErrorsNameTheirOptions()
{
    // The job's validation (on the agent's side too) names JobSpec keys; the terminal names its options.
    const QList<JobSpecError> errors{{QStringLiteral("wallTimeSeconds"), QStringLiteral("too long")},
                                     {QStringLiteral("modules[1]"), QStringLiteral("a NUL")},
                                     {QStringLiteral("container.image"), QStringLiteral("empty")},
                                     {QStringLiteral("codeSnapshot"), QStringLiteral("no option sets it")}};
    QCOMPARE(formatJobErrorsAsOptions(errors),
             QStringLiteral("--time: too long\n--module: a NUL\n--container: empty\ncodeSnapshot: no option sets it"));
}

TORCHDECK_TEST_MAIN(TestJobOptions)
#include "tst_joboptions.moc"
