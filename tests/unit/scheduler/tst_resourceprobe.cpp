#include "core/scheduler/resourceprobe.h"
#include "fixture.h"
#include "testmain.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestResourceProbe : public QObject {
    Q_OBJECT
private slots:
    void slurmCommandIsTheCapturedOne();
    void slurmCapture();
    void slurmLinesOfAnUnnamedNodeAreIgnored();
    void slurmNothingPrinted();
    void sstatCapture();
    void sstatWhenTheStepCannotRun();
    void aJobThatEndedWhileSampled();
    void nvidiaSmi_data();
    void nvidiaSmi();
    void gpusOfTheSlurmStep();
    void pbsProJson();
    void torqueText();
    void pbsNothing();
    void cpuPercentFromTheSampleBefore();
};

void TestResourceProbe::slurmCommandIsTheCapturedOne()
{
    // scripts/capture-scheduler-outputs runs this very command to capture slurm-resource-probe.txt.
    const QString command = resourceProbeCommand(SchedulerKind::Slurm, PbsDialect::PbsPro, QStringLiteral("JOBID"),
                                                 QStringLiteral("NODES"));
    const QString name = QStringLiteral("slurm-resource-probe-command.txt");
    if (qEnvironmentVariableIsSet("TORCHDECK_WRITE_CAPTURES")) { // after a deliberate change of the command
        QFile file(QStringLiteral(TORCHDECK_TEST_DATA "/scheduler/") + name);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write((command + u'\n').toUtf8()) > 0);
    }
    QCOMPARE(command + u'\n', QString::fromUtf8(fixture(name)));
    QVERIFY(resourceProbeCommand(SchedulerKind::Local, PbsDialect::PbsPro, QStringLiteral("1"), {}).isEmpty());
}

void TestResourceProbe::slurmCapture()
{
    // A job of two nodes with two ranks each (srun inside sbatch), sampled by the probe on both nodes.
    const ResourceProbeResult probe =
        parseResourceProbe(SchedulerKind::Slurm, fixture(QStringLiteral("slurm-resource-probe.txt")));
    QVERIFY2(probe.error.isEmpty(), qPrintable(probe.error));
    QCOMPARE(probe.sample.via, QStringLiteral("proc"));
    QVERIFY(probe.sample.gpus.isEmpty()); // the sandbox has no nvidia-smi
    QStringList tasks;
    for (const TaskUse &task : probe.sample.tasks) {
        tasks.append(task.node + u'/' + task.task);
        QVERIFY2(task.cpuSeconds > 0.5, qPrintable(tasks.last())); // each rank spins
        QVERIFY(task.rssMiB > 1);
        QVERIFY(task.elapsedSeconds > 0);
        QVERIFY(task.processes >= 1);
        QVERIFY(!MetricEvent::has(task.cpuPercent)); // left to computeCpuPercent
    }
    tasks.sort();
    QCOMPARE(tasks, (QStringList{QStringLiteral("node1/0"), QStringLiteral("node1/1"), QStringLiteral("node2/2"),
                                 QStringLiteral("node2/3")}));
}

void TestResourceProbe::slurmLinesOfAnUnnamedNodeAreIgnored()
{
    const QByteArray output = "0: @pid 12 procid=0 | S 1 1 1 0 -1 0 0 0 0 0 100 50 0 0 20 0 1 0 500 1000 256\n"
                              "garbage without a label\n"
                              "1: @node n2 100 4096 1000.5\n"
                              "1: @pid 13 procid=1 | S 1 1 1 0 -1 0 0 0 0 0 100 50 0 0 20 0 1 0 500 1000 256\n"
                              "1: @pid 14 procid=1 | torn\n";
    const ResourceProbeResult probe = parseResourceProbe(SchedulerKind::Slurm, output);
    QVERIFY(probe.error.isEmpty());
    QCOMPARE(probe.sample.tasks.size(), 1);
    const TaskUse &task = probe.sample.tasks.constFirst();
    QCOMPARE(task.node, QStringLiteral("n2"));
    QCOMPARE(task.task, QStringLiteral("1"));
    QCOMPARE(task.cpuSeconds, 1.5);       // (100 + 50) ticks at 100 per second
    QCOMPARE(task.rssMiB, 1.0);           // 256 pages of 4 KiB
    QCOMPARE(task.elapsedSeconds, 995.5); // up 1000.5 s, started at tick 500
    QCOMPARE(task.processes, 1);
}

void TestResourceProbe::slurmNothingPrinted()
{
    const ResourceProbeResult probe =
        parseResourceProbe(SchedulerKind::Slurm, "srun: error: Unable to create step for job 7: Invalid job id\n");
    QVERIFY(!probe.error.isEmpty());
    QVERIFY(probe.sample.isEmpty());
}

void TestResourceProbe::sstatCapture()
{
    // The same kind of job sampled by sstat, in a sandbox that gathers accounting (capture-resource-probe --sstat).
    const QList<TaskUse> steps = parseSstat(fixture(QStringLiteral("slurm-sstat.txt")));
    QVERIFY(!steps.isEmpty());
    const auto ranks = std::find_if(steps.cbegin(), steps.cend(), [](const TaskUse &t) { return t.task == u"0"; });
    QVERIFY(ranks != steps.cend()); // the srun step of the four spinning ranks
    QCOMPARE(ranks->processes, 4);
    QCOMPARE(ranks->node, QStringLiteral("node1"));
    QVERIFY2(ranks->cpuSeconds > 1, qPrintable(QString::number(ranks->cpuSeconds)));
    QVERIFY(ranks->rssMiB > 0);
}

void TestResourceProbe::sstatWhenTheStepCannotRun()
{
    const QByteArray output = "srun: error: Unable to create step for job 9: Step creation disabled\n"
                              "@sstat 9.0|4|node[1-2]|00:01:30|2048K\n"
                              "@sstat 9.batch|1|node1|00:00:00.120|1.5M\n"
                              "@sstat torn|line\n";
    const ResourceProbeResult probe = parseResourceProbe(SchedulerKind::Slurm, output);
    QVERIFY2(probe.error.isEmpty(), qPrintable(probe.error));
    QCOMPARE(probe.sample.via, QStringLiteral("sstat"));
    QCOMPARE(probe.sample.tasks.size(), 2);
    const TaskUse &step = probe.sample.tasks.constFirst();
    QCOMPARE(step.task, QStringLiteral("0"));
    QCOMPARE(step.node, QStringLiteral("node1"));
    QCOMPARE(step.cpuSeconds, 360.0); // 90 s on average, four tasks
    QCOMPARE(step.rssMiB, 8.0);
    QCOMPARE(probe.sample.tasks.at(1).cpuSeconds, 0.12);
    QCOMPARE(probe.sample.tasks.at(1).rssMiB, 1.5);
    QVERIFY(resourceProbeCommand(SchedulerKind::Slurm, PbsDialect::PbsPro, QStringLiteral("9"), {})
                .contains(QStringLiteral(" || sstat --noheader --parsable2 --allsteps --jobs=9 ")));
}

void TestResourceProbe::aJobThatEndedWhileSampled()
{
    // What the 2-node sandbox printed when a job ended between the poll and the sample: no problem to show.
    QVERIFY(probeRacedJobEnd("srun: error: Unable to create step for job 12: Job/step already completing or "
                             "completed\nsstat: error: No steps running for job 12\n"));
    QVERIFY(probeRacedJobEnd("sstat: error: No steps running for job 12\n"));
    QVERIFY(probeRacedJobEnd("qstat: Unknown Job Id 12.pbs\n"));
    QVERIFY(!probeRacedJobEnd("srun: error: Unable to allocate resources: Access denied\n"));
    QVERIFY(!probeRacedJobEnd({}));
}

void TestResourceProbe::nvidiaSmi_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<double>("utilization");
    QTest::addColumn<double>("used");
    // nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits
    QTest::addRow("busy") << QStringLiteral("0, 87, 31245, 81559") << true << 87.0 << 31245.0;
    QTest::addRow("not supported") << QStringLiteral("1, [N/A], 2, 81559") << true << kNoValue << 2.0;
    QTest::addRow("error text") << QStringLiteral("No devices were found") << false << kNoValue << kNoValue;
    QTest::addRow("three fields") << QStringLiteral("0, 87, 31245") << false << kNoValue << kNoValue;
}

void TestResourceProbe::nvidiaSmi()
{
    QFETCH(QString, line);
    QFETCH(bool, ok);
    QFETCH(double, utilization);
    QFETCH(double, used);
    GpuUse gpu;
    QCOMPARE(parseNvidiaSmiLine(line, QStringLiteral("g1"), &gpu), ok);
    if (!ok)
        return;
    QCOMPARE(gpu.node, QStringLiteral("g1"));
    QCOMPARE(MetricEvent::has(gpu.utilization), MetricEvent::has(utilization));
    if (MetricEvent::has(utilization))
        QCOMPARE(gpu.utilization, utilization);
    QCOMPARE(gpu.memoryUsedMiB, used);
    QCOMPARE(gpu.memoryTotalMiB, 81559.0);
}

void TestResourceProbe::gpusOfTheSlurmStep()
{
    const QByteArray output = "0: @node gpu07 100 4096 50.0\n"
                              "0: @gpu 0, 97, 70000, 81559\n"
                              "0: @gpu 1, 95, 69000, 81559\n"
                              "1: @node gpu08 100 4096 50.0\n"
                              "1: @gpu 0, 12, 1000, 81559\n";
    const ResourceProbeResult probe = parseResourceProbe(SchedulerKind::Slurm, output);
    QCOMPARE(probe.sample.gpus.size(), 3);
    QCOMPARE(probe.sample.gpus.at(2).node, QStringLiteral("gpu08"));
    QCOMPARE(probe.sample.gpuUtilization(), (97.0 + 95.0 + 12.0) / 3.0);
    QCOMPARE(probe.sample.gpuMemoryUsedMiB(), 140000.0);
    QCOMPARE(resourceSummary(probe.sample), QStringLiteral("GPU 68% 136.7/238.9 GiB (3)"));
}

void TestResourceProbe::pbsProJson()
{
    // The capture lists several jobs; the probe asks for one, as `qstat -f -F json JOB` prints it.
    const QJsonObject all = QJsonDocument::fromJson(fixture(QStringLiteral("pbspro-qstat-f-json.txt"))).object();
    const QJsonObject one{{QStringLiteral("Jobs"), QJsonObject{{QStringLiteral("1234.pbs01"),
                                                                all.value(u"Jobs").toObject().value(u"1234.pbs01")}}}};
    QByteArray output = QJsonDocument(one).toJson();
    output += "\n@@gpus\n0, 50, 1024, 16384\n";
    const ResourceProbeResult probe = parseResourceProbe(SchedulerKind::Pbs, output);
    QVERIFY2(probe.error.isEmpty(), qPrintable(probe.error));
    QCOMPARE(probe.sample.via, QStringLiteral("qstat"));
    QCOMPARE(probe.sample.tasks.size(), 1);
    const TaskUse &job = probe.sample.tasks.constFirst();
    QCOMPARE(job.cpuSeconds, 3723.0);     // cput 01:02:03
    QCOMPARE(job.elapsedSeconds, 3723.0); // walltime 01:02:03
    QCOMPARE(job.rssMiB, 3200.0);         // mem 3276800kb
    QCOMPARE(probe.sample.gpus.size(), 1);
    QCOMPARE(probe.sample.gpus.constFirst().utilization, 50.0);
    QVERIFY(resourceProbeCommand(SchedulerKind::Pbs, PbsDialect::PbsPro, QStringLiteral("1.pbs"), QStringLiteral("n1"))
                .startsWith(QStringLiteral("qstat -f -F json 1.pbs; echo; echo @@gpus; timeout 30 ssh ")));
}

void TestResourceProbe::torqueText()
{
    const QByteArray output = "Job Id: 77.torque\n"
                              "    resources_used.cput = 00:10:00\n"
                              "    resources_used.mem = 2gb\n"
                              "    resources_used.walltime = 00:05:00\n"
                              "    exec_host = n3/0-3+n4/0-3\n";
    const ResourceProbeResult probe = parseResourceProbe(SchedulerKind::Pbs, output);
    QCOMPARE(probe.sample.tasks.size(), 1);
    const TaskUse &job = probe.sample.tasks.constFirst();
    QCOMPARE(job.node, QStringLiteral("n3"));
    QCOMPARE(job.cpuSeconds, 600.0);
    QCOMPARE(job.rssMiB, 2048.0);
    ResourceSample sample = probe.sample;
    computeCpuPercent(&sample, {});
    QCOMPARE(sample.tasks.constFirst().cpuPercent, 200.0); // two cores busy over its life
}

void TestResourceProbe::pbsNothing()
{
    const ResourceProbeResult probe = parseResourceProbe(SchedulerKind::Pbs, "qstat: Unknown Job Id 9.pbs\n");
    QVERIFY(!probe.error.isEmpty());
}

void TestResourceProbe::cpuPercentFromTheSampleBefore()
{
    ResourceSample before;
    before.time = 100;
    TaskUse rank;
    rank.node = QStringLiteral("n1");
    rank.task = QStringLiteral("0");
    rank.cpuSeconds = 50;
    rank.elapsedSeconds = 100;
    before.tasks = {rank};
    ResourceSample now = before;
    now.time = 110;
    now.tasks[0].cpuSeconds = 70; // 20 s of CPU in 10 s
    now.tasks[0].elapsedSeconds = 110;
    TaskUse other = rank;
    other.task = QStringLiteral("1"); // no sample before: over its life
    other.cpuSeconds = 11;
    other.elapsedSeconds = 110;
    now.tasks.append(other);
    computeCpuPercent(&now, before);
    QCOMPARE(now.tasks.at(0).cpuPercent, 200.0);
    QCOMPARE(now.tasks.at(1).cpuPercent, 10.0);
    QCOMPARE(now.cpuPercent(), 210.0);
}

TORCHDECK_TEST_MAIN(TestResourceProbe)
#include "tst_resourceprobe.moc"
