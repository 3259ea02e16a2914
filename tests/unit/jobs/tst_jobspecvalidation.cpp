#include "core/jobs/jobscript.h"
#include "core/jobs/jobspecvalidation.h"
#include "samplespecs.h"
#include "testmain.h"

#include <QTest>
#include <functional>

using namespace torchdeck;

using Mutation = std::function<void(JobSpec &, ClusterCaps &)>;
Q_DECLARE_METATYPE(Mutation)

class TestJobSpecValidation : public QObject {
    Q_OBJECT
private slots:
    void samplesAreValid();
    void rejects_data();
    void rejects();
    void invalidSpecGivesNoScript();
    void defaultSignalDependsOnGpus();
    void overcommitWhenRanksExceedCpus();
};

void TestJobSpecValidation::samplesAreValid()
{
    for (const testing::SampleSpec &sample : testing::sampleSpecs())
        QVERIFY2(validateJobSpec(sample.spec, sample.caps).isEmpty(),
                 qPrintable(QString::fromUtf8(sample.name) + u' ' +
                            formatJobSpecErrors(validateJobSpec(sample.spec, sample.caps))));
    // Directives torchdeck does not write itself are the user's (a site's memory, features, QOS, mail).
    JobSpec spec = testing::cpuTrainer();
    spec.extraDirectives = {QStringLiteral("--exclusive"),
                            QStringLiteral("--mem=16G"),
                            QStringLiteral("--constraint=a100"),
                            QStringLiteral("-q high"),
                            QStringLiteral("#SBATCH --mail-type=END"),
                            QStringLiteral("--begin=now+1hour"),
                            QStringLiteral("--account=proj"),
                            QStringLiteral("--excl"), // prefixes of options torchdeck leaves to the user
                            QStringLiteral("--acc=proj")};
    QVERIFY2(validateJobSpec(spec, testing::slurmCaps()).isEmpty(),
             qPrintable(formatJobSpecErrors(validateJobSpec(spec, testing::slurmCaps()))));
}

void TestJobSpecValidation::rejects_data()
{
    QTest::addColumn<Mutation>("mutate");
    QTest::addColumn<QString>("field");
    auto row = [](const char *tag, const char *field, Mutation m) {
        QTest::newRow(tag) << m << QString::fromUtf8(field);
    };
    row("zero nodes", "nodes", [](JobSpec &s, ClusterCaps &) { s.nodes = 0; });
    row("zero tasks", "tasksPerNode", [](JobSpec &s, ClusterCaps &) { s.tasksPerNode = 0; });
    row("zero cpus", "cpusPerTask", [](JobSpec &s, ClusterCaps &) { s.cpusPerTask = 0; });
    row("negative gpus", "gpusPerNode", [](JobSpec &s, ClusterCaps &) { s.gpusPerNode = -2; });
    row("gpus on a cpu partition", "gpusPerNode", [](JobSpec &s, ClusterCaps &) {
        s.gpusPerNode = 1;
        s.partition = QStringLiteral("debug");
    });
    row("gpus on the default cpu partition", "gpusPerNode", [](JobSpec &s, ClusterCaps &) { s.gpusPerNode = 1; });
    row("more gpus than the partition has", "gpusPerNode", [](JobSpec &s, ClusterCaps &) {
        s.gpusPerNode = 8;
        s.partition = QStringLiteral("gpu");
    });
    row("more memory than the partition's nodes have", "memory", [](JobSpec &s, ClusterCaps &c) {
        c.partitions.first().memoryMiB = 2000;
        s.memory = QStringLiteral("4G");
    });
    row("negative gpus per task", "gpusPerTask", [](JobSpec &s, ClusterCaps &) { s.gpusPerTask = -1; });
    row("gpus per task on a cpu partition", "gpusPerTask", [](JobSpec &s, ClusterCaps &) { s.gpusPerTask = 1; });
    row("more gpus per task than the node has", "gpusPerTask", [](JobSpec &s, ClusterCaps &) {
        s.tasksPerNode = 3;
        s.gpusPerTask = 2;
        s.partition = QStringLiteral("gpu");
    });
    row("gpus per node and per task", "gpusPerTask", [](JobSpec &s, ClusterCaps &) {
        s.gpusPerNode = 1;
        s.gpusPerTask = 1;
        s.partition = QStringLiteral("gpu");
    });
    row("gpus per task with --gres", "gpusPerTask", [](JobSpec &s, ClusterCaps &c) {
        c.gpuRequest = GpuRequestStyle::Gres;
        s.gpusPerTask = 1;
        s.partition = QStringLiteral("gpu");
    });
    row("gpu type without gpus", "gpuType", [](JobSpec &s, ClusterCaps &) { s.gpuType = QStringLiteral("a100"); });
    row("gpu type the partition lacks", "gpuType", [](JobSpec &s, ClusterCaps &c) {
        c.partitions[1].gpuTypes = {QStringLiteral("a100")};
        s.partition = QStringLiteral("gpu");
        s.gpusPerNode = 1;
        s.gpuType = QStringLiteral("h100");
    });
    row("hostile gpu type", "gpuType", [](JobSpec &s, ClusterCaps &) {
        s.partition = QStringLiteral("gpu");
        s.gpusPerNode = 1;
        s.gpuType = QStringLiteral("a100\n#SBATCH --x");
    });
    row("gpus per task on pbs", "gpusPerTask", [](JobSpec &s, ClusterCaps &c) {
        c.scheduler = SchedulerKind::Pbs;
        c.partitions.clear();
        s.launch = LaunchMethod::Mpirun;
        s.gpusPerTask = 1;
    });
    row("code for the trainer", "code", [](JobSpec &s, ClusterCaps &) {
        s.codeDirectory = QStringLiteral("/p");
        s.workingDirectory.clear();
    });
    row("not a snapshot id", "codeSnapshot", [](JobSpec &s, ClusterCaps &) {
        s.commandKind = CommandKind::Custom;
        s.customCommand = QStringLiteral("true");
        s.codeSnapshot = QStringLiteral("abc; rm -rf ~");
        s.workingDirectory.clear();
    });
    row("code and a working directory of one's own", "workingDirectory", [](JobSpec &s, ClusterCaps &) {
        s.commandKind = CommandKind::Custom;
        s.customCommand = QStringLiteral("true");
        s.codeDirectory = QStringLiteral("/home/me/project");
        s.workingDirectory = QStringLiteral("/home/me/code");
    });
    row("empty name", "name", [](JobSpec &s, ClusterCaps &) { s.name.clear(); });
    row("name with newline", "name", [](JobSpec &s, ClusterCaps &) { s.name = QStringLiteral("a\nb"); });
    row("name with space", "name", [](JobSpec &s, ClusterCaps &) { s.name = QStringLiteral("my job"); });
    // "$" also matches before a last newline: the patterns are anchored at the very end (\z).
    row("name ending in a newline", "name", [](JobSpec &s, ClusterCaps &) { s.name = QStringLiteral("job\n"); });
    row("partition ending in a newline", "partition",
        [](JobSpec &s, ClusterCaps &) { s.partition = QStringLiteral("debug\n"); });
    row("memory ending in a newline", "memory", [](JobSpec &s, ClusterCaps &) { s.memory = QStringLiteral("16G\n"); });
    row("dependency id ending in a newline", "dependencies[0].jobIds", [](JobSpec &s, ClusterCaps &) {
        s.dependencies = {{DependencyKind::AfterOk, {QStringLiteral("12\n")}}};
    });
    row("name starting with digit", "name", [](JobSpec &s, ClusterCaps &) { s.name = QStringLiteral("1job"); });
    row("name with hetjob", "name", [](JobSpec &s, ClusterCaps &) { s.name = QStringLiteral("myhetjob"); });
    row("bad memory", "memory", [](JobSpec &s, ClusterCaps &) { s.memory = QStringLiteral("16 GB"); });
    row("negative wall time", "wallTimeSeconds", [](JobSpec &s, ClusterCaps &) { s.wallTimeSeconds = -1; });
    row("partition with space", "partition", [](JobSpec &s, ClusterCaps &) { s.partition = QStringLiteral("a b"); });
    row("account with quote", "account", [](JobSpec &s, ClusterCaps &) { s.account = QStringLiteral("a'"); });
    row("relative working dir", "workingDirectory",
        [](JobSpec &s, ClusterCaps &) { s.workingDirectory = QStringLiteral("runs/x"); });
    row("empty module", "modules[0]", [](JobSpec &s, ClusterCaps &) { s.modules = {QStringLiteral(" ")}; });
    row("env name with dash", "environment[0].name", [](JobSpec &s, ClusterCaps &) {
        s.environment = {{QStringLiteral("MY-VAR"), QStringLiteral("1")}};
    });
    row("env name with digit first", "environment[0].name", [](JobSpec &s, ClusterCaps &) {
        s.environment = {{QStringLiteral("1X"), QStringLiteral("1")}};
    });
    row("env name read-only", "environment[0].name", [](JobSpec &s, ClusterCaps &) {
        s.environment = {{QStringLiteral("UID"), QStringLiteral("0")}};
    });
    row("env name of the script", "environment[0].name", [](JobSpec &s, ClusterCaps &) {
        s.environment = {{QStringLiteral("td_status"), QStringLiteral("0")}};
    });
    row("env set twice", "environment[1].name", [](JobSpec &s, ClusterCaps &) {
        s.environment = {{QStringLiteral("A"), QStringLiteral("1")}, {QStringLiteral("A"), QStringLiteral("2")}};
    });
    row("NUL in an argument", "trainerArgs", [](JobSpec &s, ClusterCaps &) {
        s.trainerArgs = {QStringLiteral("--metrics"), QStringLiteral("a") + QChar(0)};
    });
    row("a value the trainer refuses", "trainerArgs", [](JobSpec &s, ClusterCaps &) {
        s.trainerArgs = {QStringLiteral("--lr"), QStringLiteral("abc")};
    });
    row("an option the trainer does not know", "trainerArgs",
        [](JobSpec &s, ClusterCaps &) { s.trainerArgs = {QStringLiteral("--no-such-option")}; });
    row("srun on pbs", "launch", [](JobSpec &s, ClusterCaps &c) {
        c.scheduler = SchedulerKind::Pbs;
        s.partition.clear();
    });
    row("local method on two nodes", "launch", [](JobSpec &s, ClusterCaps &) {
        s.launch = LaunchMethod::Local;
        s.nodes = 2;
    });
    row("empty custom command", "customCommand", [](JobSpec &s, ClusterCaps &) {
        s.commandKind = CommandKind::Custom;
        s.customCommand = QStringLiteral("  ");
    });
    row("no trainer path", "trainerPath", [](JobSpec &s, ClusterCaps &) { s.trainerPath.clear(); });
    row("container without image", "container.image",
        [](JobSpec &s, ClusterCaps &) { s.container.runtime = ContainerRuntime::Apptainer; });
    row("log path with space on slurm", "outputPath",
        [](JobSpec &s, ClusterCaps &) { s.outputPath = QStringLiteral("/my logs/%j.out"); });
    row("default log path under a spaced dir", "outputPath",
        [](JobSpec &s, ClusterCaps &) { s.workingDirectory = QStringLiteral("/home/a/My Runs"); });
    row("log path with %u", "errorPath", [](JobSpec &s, ClusterCaps &) { s.errorPath = QStringLiteral("/l/%u.err"); });
    row("unknown signal", "checkpointSignal",
        [](JobSpec &s, ClusterCaps &) { s.checkpointSignal = QStringLiteral("KILL"); });
    row("TERM through srun", "checkpointSignal",
        [](JobSpec &s, ClusterCaps &) { s.checkpointSignal = QStringLiteral("TERM"); });
    row("USR1 through torchrun", "checkpointSignal", [](JobSpec &s, ClusterCaps &) {
        s.launch = LaunchMethod::SrunPerNodeLauncher;
        s.commandKind = CommandKind::Custom;
        s.customCommand = QStringLiteral("python x.py");
        s.checkpointSignal = QStringLiteral("USR1"); // torchrun dies of it; INT is its default
    });
    row("INT through srun", "checkpointSignal",
        [](JobSpec &s, ClusterCaps &) { s.checkpointSignal = QStringLiteral("INT"); });
    row("lead longer than wall time", "signalLeadSeconds",
        [](JobSpec &s, ClusterCaps &) { s.signalLeadSeconds = int(s.wallTimeSeconds); });
    row("pbs timer without wall time", "wallTimeSeconds", [](JobSpec &s, ClusterCaps &c) {
        c.scheduler = SchedulerKind::Pbs;
        s.launch = LaunchMethod::Mpirun;
        s.partition.clear();
        s.wallTimeSeconds = 0;
    });
    row("negative restarts", "maxRestarts", [](JobSpec &s, ClusterCaps &) { s.maxRestarts = -1; });
    row("exit code 0", "requeueExitCode", [](JobSpec &s, ClusterCaps &) { s.requeueExitCode = 0; });
    row("dependency without ids", "dependencies[0].jobIds", [](JobSpec &s, ClusterCaps &) {
        s.dependencies = {{DependencyKind::AfterOk, {}}};
    });
    row("pbs id on slurm", "dependencies[0].jobIds", [](JobSpec &s, ClusterCaps &) {
        s.dependencies = {{DependencyKind::AfterOk, {QStringLiteral("12.server")}}};
    });
    row("dependency on local", "dependencies[0].jobIds", [](JobSpec &s, ClusterCaps &c) {
        c.scheduler = SchedulerKind::Local;
        s.launch = LaunchMethod::Local;
        s.dependencies = {{DependencyKind::AfterOk, {QStringLiteral("12")}}};
    });
    row("extra directive with newline", "extraDirectives[0]",
        [](JobSpec &s, ClusterCaps &) { s.extraDirectives = {QStringLiteral("--exclusive\necho hi")}; });
    row("extra directive setting the log", "extraDirectives[0]",
        [](JobSpec &s, ClusterCaps &) { s.extraDirectives = {QStringLiteral("--output=/tmp/x")}; });
    row("extra directive setting the log by a prefix", "extraDirectives[0]",
        [](JobSpec &s, ClusterCaps &) { s.extraDirectives = {QStringLiteral("--out=/tmp/x")}; });
    row("extra directive setting the directory by a prefix", "extraDirectives[0]",
        [](JobSpec &s, ClusterCaps &) { s.extraDirectives = {QStringLiteral("--chd /tmp")}; });
    row("extra directive setting the name", "extraDirectives[0]",
        [](JobSpec &s, ClusterCaps &) { s.extraDirectives = {QStringLiteral("-J hijack")}; });
    row("extra directive setting the dependency", "extraDirectives[0]",
        [](JobSpec &s, ClusterCaps &) { s.extraDirectives = {QStringLiteral("#SBATCH --dependency afterok:1")}; });
    row("empty extra directive", "extraDirectives[0]",
        [](JobSpec &s, ClusterCaps &) { s.extraDirectives = {QString()}; });
    row("masterPort out of range", "masterPort", [](JobSpec &s, ClusterCaps &) { s.masterPort = 70000; });
}

void TestJobSpecValidation::rejects()
{
    QFETCH(Mutation, mutate);
    QFETCH(QString, field);
    JobSpec spec = testing::cpuTrainer();
    ClusterCaps caps = testing::slurmCaps();
    mutate(spec, caps);
    const QList<JobSpecError> errors = validateJobSpec(spec, caps);
    QVERIFY2(errors.size() == 1, qPrintable(formatJobSpecErrors(errors)));
    QCOMPARE(errors[0].field, field);
    QVERIFY(!errors[0].message.isEmpty());
}

void TestJobSpecValidation::invalidSpecGivesNoScript()
{
    JobSpec spec = testing::cpuTrainer();
    spec.nodes = 0;
    for (const auto scheduler : {SchedulerKind::Slurm, SchedulerKind::Pbs, SchedulerKind::Local}) {
        ClusterCaps caps;
        caps.scheduler = scheduler;
        spec.launch = scheduler == SchedulerKind::Slurm ? LaunchMethod::Srun : LaunchMethod::Mpirun;
        const ScriptResult r = renderJobScript(spec, caps);
        QVERIFY(!r.ok());
        QVERIFY(r.script.isEmpty());
        QCOMPARE(r.errors.first().field, QStringLiteral("nodes"));
    }
    // A note without fields (a cluster a placement skipped) says the sentences alone.
    spec.tasksPerNode = 0;
    const QList<JobSpecError> errors = validateJobSpec(spec, testing::slurmCaps());
    QCOMPARE(errors.size(), 2);
    QCOMPARE(describeJobSpecErrors(errors),
             QStringLiteral("A job needs at least one node. A node needs at least one task (rank)."));
}

void TestJobSpecValidation::defaultSignalDependsOnGpus()
{
    JobSpec spec;
    QCOMPARE(effectiveCheckpointSignal(spec), QStringLiteral("USR1"));
    spec.gpusPerNode = 1;
    QCOMPARE(effectiveCheckpointSignal(spec), QStringLiteral("USR2"));
    spec.checkpointSignal = QStringLiteral("sigterm");
    QCOMPARE(effectiveCheckpointSignal(spec), QStringLiteral("TERM"));
    JobSpec local = testing::localTrainer(); // TERM reaches a direct child
    local.checkpointSignal = QStringLiteral("TERM");
    QVERIFY(validateJobSpec(local, ClusterCaps()).isEmpty());
    spec.checkpointSignalEnabled = false;
    QCOMPARE(effectiveCheckpointSignal(spec), QString());

    // A user's command under torchrun gets INT by default, which torchrun passes on to its workers (it dies of
    // USR1/USR2), and is accepted as it is: no "turn the signal off" for a newcomer to discover.
    JobSpec perNode;
    perNode.launch = LaunchMethod::SrunPerNodeLauncher;
    perNode.commandKind = CommandKind::Custom;
    perNode.name = QStringLiteral("ddp");
    perNode.customCommand = QStringLiteral("python3 ddp.py");
    QCOMPARE(effectiveCheckpointSignal(perNode), QStringLiteral("INT"));
    QVERIFY2(validateJobSpec(perNode, testing::slurmCaps()).isEmpty(),
             qPrintable(formatJobSpecErrors(validateJobSpec(perNode, testing::slurmCaps()))));
    const auto firstError = [](const JobSpec &s) {
        const QList<JobSpecError> errors = validateJobSpec(s, testing::slurmCaps());
        return errors.isEmpty() ? QString() : errors.first().field + u' ' + errors.first().message;
    };
    JobSpec usr1 = perNode; // torchrun would die of it
    usr1.checkpointSignal = QStringLiteral("USR1");
    QVERIFY2(firstError(usr1).startsWith(u"checkpointSignal A per-node launcher like torchrun passes INT"),
             qPrintable(firstError(usr1)));
    JobSpec shortLead = perNode; // torchrun kills its workers 30 s after the signal
    shortLead.signalLeadSeconds = 30;
    QVERIFY2(firstError(shortLead).startsWith(u"signalLeadSeconds torchrun gives its workers 30 s"),
             qPrintable(firstError(shortLead)));
    JobSpec srunInt = testing::cpuTrainer(); // srun answers INT with a status line
    srunInt.checkpointSignal = QStringLiteral("SIGINT");
    QVERIFY2(firstError(srunInt).startsWith(u"checkpointSignal INT is for a per-node launcher"),
             qPrintable(firstError(srunInt)));
}

void TestJobSpecValidation::overcommitWhenRanksExceedCpus()
{
    JobSpec spec = testing::cpuTrainer(); // 2 ranks on "debug", 2 CPUs per node
    spec.tasksPerNode = 4;
    const ScriptResult slurm = renderSlurmScript(spec, testing::slurmCaps());
    QVERIFY(slurm.ok());
    QVERIFY(slurm.script.contains(u"#SBATCH --overcommit\n"));
    QVERIFY(slurm.script.contains(u"srun --ntasks-per-node=4 --overcommit"));
    spec.launch = LaunchMethod::Mpirun;
    QVERIFY(renderSlurmScript(spec, testing::slurmCaps()).script.contains(u" --oversubscribe"));
    spec.launch = LaunchMethod::Local; // one process for the 4 ranks: capped at the node's 2 CPUs
    const ScriptResult local = renderSlurmScript(spec, testing::slurmCaps());
    QVERIFY(local.script.contains(u"#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=2\n"));
    QVERIFY(!local.script.contains(u"overcommit"));
}

TORCHDECK_TEST_MAIN(TestJobSpecValidation)
#include "tst_jobspecvalidation.moc"
