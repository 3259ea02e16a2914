#include "core/jobs/arrayscript.h"
#include "core/jobs/jobscript.h"
#include "core/jobs/runlayout.h"
#include "testmain.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace Qt::StringLiterals;

namespace {

// The script a run of `lr` alone would send, as the launcher renders it (core/runs/launchrequest.h).
QString taskScript(const ClusterCaps &caps, const QString &runDirectory, const QString &lr, int nodes = 1)
{
    JobSpec spec;
    spec.name = u"ae.lr"_s + lr;
    spec.nodes = nodes;
    spec.tasksPerNode = 2;
    spec.wallTimeSeconds = 600;
    spec.trainerArgs = {u"--model"_s, u"ae"_s, u"--lr"_s, lr};
    const JobSpec attempt = attemptSpec(spec, RunLayout{runDirectory}, 0, u"/w/trainer/torchdeck-train"_s, {});
    const ScriptResult script = renderJobScript(attempt, caps);
    return script.script;
}

QList<ArrayTask> threeTasks(const ClusterCaps &caps)
{
    QList<ArrayTask> tasks;
    for (const QString &lr : {u"0.1"_s, u"0.01"_s, u"0.001"_s}) {
        const QString directory = u"/w/runs/run-"_s + lr;
        tasks.append({directory, taskScript(caps, directory, lr)});
    }
    return tasks;
}

ClusterCaps capsOf(SchedulerKind scheduler, PbsDialect dialect = PbsDialect::PbsPro)
{
    ClusterCaps c;
    c.scheduler = scheduler;
    c.pbsDialect = dialect;
    return c;
}

QStringList linesStarting(const QString &script, const QString &prefix)
{
    QStringList found;
    for (const QString &line : script.split(u'\n')) {
        if (line.startsWith(prefix))
            found.append(line);
    }
    return found;
}

} // namespace

class TestArrayScript : public QObject {
    Q_OBJECT
private slots:
    void slurmArrayHasTheSharedShapeOnce();
    void pbsArrays_data();
    void pbsArrays();
    void refusesWhatCannotGoAsOneArray();
    void taskRunsItsOwnRunsScript();
    void taskJobIds_data();
    void taskJobIds();
    void limitsFromTheClustersAnswer();
};

void TestArrayScript::slurmArrayHasTheSharedShapeOnce()
{
    const ClusterCaps slurm = capsOf(SchedulerKind::Slurm);
    const QList<ArrayTask> tasks = threeTasks(slurm);
    const ArrayScript array = renderArrayScript(slurm, tasks, u"ae-1234abcd-a0"_s, u"/w/arrays/x"_s, u"job-0.sh"_s, 2);
    QVERIFY2(array.ok(), qPrintable(array.error));
    QCOMPARE(linesStarting(array.script, u"#SBATCH --array="_s), QStringList{u"#SBATCH --array=0-2%2"_s});
    QCOMPARE(linesStarting(array.script, u"#SBATCH --job-name="_s),
             QStringList{u"#SBATCH --job-name=ae-1234abcd-a0"_s});
    // Each task's log is its run's own, reached through <array directory>/<task>.
    QCOMPARE(linesStarting(array.script, u"#SBATCH --output="_s),
             QStringList{u"#SBATCH --output=/w/arrays/x/%a/attempt-0-%A_%a.out"_s});
    QCOMPARE(linesStarting(array.script, u"#SBATCH --nodes="_s), QStringList{u"#SBATCH --nodes=1"_s});
    QCOMPARE(arrayShape(array.script), QStringList{u"#SBATCH --array=0-2%2"_s} + arrayShape(tasks.constFirst().script));
    QVERIFY(array.script.startsWith(tasks.constFirst().script.section(u'\n', 0, 0) + u'\n'));
    QVERIFY(array.script.contains(u"1) cd -- /w/runs/run-0.01 && exec /bin/bash /w/runs/run-0.01/job-0.sh ;;"_s));
    // No limit: no %.
    const ArrayScript unlimited = renderArrayScript(slurm, tasks, u"ae"_s, u"/w/arrays/x"_s, u"job-0.sh"_s, 0);
    QCOMPARE(linesStarting(unlimited.script, u"#SBATCH --array="_s), QStringList{u"#SBATCH --array=0-2"_s});
}

void TestArrayScript::pbsArrays_data()
{
    QTest::addColumn<int>("dialect");
    QTest::addColumn<QStringList>("range");
    QTest::addRow("pbs pro") << int(PbsDialect::PbsPro)
                             << QStringList{u"#PBS -J 0-2"_s, u"#PBS -W max_run_subjobs=2"_s};
    QTest::addRow("torque") << int(PbsDialect::Torque) << QStringList{u"#PBS -t 0-2%2"_s};
}

void TestArrayScript::pbsArrays()
{
    QFETCH(int, dialect);
    QFETCH(QStringList, range);
    const ClusterCaps pbs = capsOf(SchedulerKind::Pbs, PbsDialect(dialect));
    const ArrayScript array =
        renderArrayScript(pbs, threeTasks(pbs), u"ae-1234abcd-a0"_s, u"/w/arrays/x"_s, u"job-0.sh"_s, 2);
    QVERIFY2(array.ok(), qPrintable(array.error));
    for (const QString &line : range)
        QVERIFY2(array.script.contains(line + u'\n'), qPrintable(array.script));
    QCOMPARE(linesStarting(array.script, u"#PBS -N "_s), QStringList{u"#PBS -N ae-1234abcd-a0"_s});
    QVERIFY(!array.script.contains(u"#SBATCH"_s));
}

void TestArrayScript::refusesWhatCannotGoAsOneArray()
{
    const ClusterCaps slurm = capsOf(SchedulerKind::Slurm);
    QList<ArrayTask> tasks = threeTasks(slurm);
    const auto refused = [&](const QList<ArrayTask> &these, const ClusterCaps &c = capsOf(SchedulerKind::Slurm)) {
        return !renderArrayScript(c, these, u"a"_s, u"/w/arrays/x"_s, u"job-0.sh"_s, 0).ok();
    };
    QVERIFY(refused(tasks.mid(0, 1)));
    QVERIFY(refused(tasks, capsOf(SchedulerKind::Local)));
    QList<ArrayTask> shapes = tasks;
    shapes[2].script = taskScript(slurm, shapes[2].runDirectory, u"0.001"_s, 2); // two nodes
    QVERIFY(refused(shapes));
    QList<ArrayTask> elsewhere = tasks;
    elsewhere[1].runDirectory = u"/w/runs/other"_s; // its log is not under it
    QVERIFY(refused(elsewhere));
}

void TestArrayScript::taskRunsItsOwnRunsScript()
{
    // The array's script run as Slurm runs task 1: it runs task 1's script in task 1's directory, nothing else.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QList<ArrayTask> tasks;
    for (int i = 0; i < 3; ++i) {
        const QString run = dir.filePath(u"run %1"_s.arg(i));
        QVERIFY(QDir().mkpath(run));
        const QString script = u"#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --output=%1/attempt-0-%j.out\n"
                               "echo \"task %2 in $PWD\" >> %3\n"_s.arg(run)
                                   .arg(i)
                                   .arg(dir.filePath(u"ran"_s));
        QFile file(run + u"/job-0.sh"_s);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(script.toUtf8());
        file.close();
        tasks.append({run, script});
    }
    const ArrayScript array =
        renderArrayScript(capsOf(SchedulerKind::Slurm), tasks, u"a"_s, dir.filePath(u"array"_s), u"job-0.sh"_s, 0);
    QVERIFY2(array.ok(), qPrintable(array.error));
    const auto runTask = [&](const QString &task) {
        QProcess bash;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"SLURM_ARRAY_TASK_ID"_s, task);
        bash.setProcessEnvironment(env);
        bash.start(u"bash"_s, {u"-c"_s, array.script});
        bash.waitForFinished();
        return bash.exitCode();
    };
    QCOMPARE(runTask(u"1"_s), 0);
    QCOMPARE(runTask(u"7"_s), 1);
    QFile ran(dir.filePath(u"ran"_s));
    QVERIFY(ran.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(ran.readAll()), u"task 1 in %1\n"_s.arg(tasks.at(1).runDirectory));
}

void TestArrayScript::taskJobIds_data()
{
    QTest::addColumn<int>("scheduler");
    QTest::addColumn<QString>("array");
    QTest::addColumn<QString>("task");
    QTest::addRow("slurm") << int(SchedulerKind::Slurm) << u"123"_s << u"123_4"_s;
    QTest::addRow("pbs server") << int(SchedulerKind::Pbs) << u"123[].pbs01"_s << u"123[4].pbs01"_s;
    QTest::addRow("pbs bare") << int(SchedulerKind::Pbs) << u"123[]"_s << u"123[4]"_s;
}

void TestArrayScript::taskJobIds()
{
    QFETCH(int, scheduler);
    QFETCH(QString, array);
    QFETCH(QString, task);
    QCOMPARE(arrayTaskJobId(SchedulerKind(scheduler), array, 4), task);
    QCOMPARE(arrayJobIdOf(SchedulerKind(scheduler), task), array);
    QCOMPARE(arrayJobIdOf(SchedulerKind(scheduler), array), array);
}

// The limits command run under bash with scontrol and sacctmgr as a cluster prints them, then read.
void TestArrayScript::limitsFromTheClustersAnswer()
{
    QTemporaryDir bin;
    QVERIFY(bin.isValid());
    const auto tool = [&](const QString &name, const QByteArray &body) {
        QFile file(bin.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("#!/bin/sh\n" + body);
        file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    };
    tool(u"scontrol"_s, "printf 'MaxArraySize            = 1001\\nMaxJobCount             = 10000\\n'\n");
    tool(u"sacctmgr"_s, "echo 20\n");
    QProcess shell;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"PATH"_s, bin.path() + u":/usr/bin:/bin"_s);
    shell.setProcessEnvironment(env);
    shell.start(u"bash"_s, {u"-c"_s, arrayLimitsCommand(SchedulerKind::Slurm)});
    QVERIFY(shell.waitForFinished());
    const QByteArray answer = shell.readAllStandardOutput();
    QCOMPARE(answer, QByteArray("1001\n@\n20\n"));
    QVERIFY(arrayLimitProblem(SchedulerKind::Slurm, answer, 20).isEmpty());
    QVERIFY2(arrayLimitProblem(SchedulerKind::Slurm, answer, 21).contains(u"MaxSubmitJobs"_s),
             qPrintable(arrayLimitProblem(SchedulerKind::Slurm, answer, 21)));
    QVERIFY2(arrayLimitProblem(SchedulerKind::Slurm, "10\n@\n", 11).contains(u"MaxArraySize is 10"_s),
             qPrintable(arrayLimitProblem(SchedulerKind::Slurm, "10\n@\n", 11)));
    // Separate jobs: only the queue limit counts; nothing known, nothing refused.
    QVERIFY(queueLimitProblem(answer, 20).isEmpty());
    QVERIFY2(queueLimitProblem(answer, 25).contains(u"at once (MaxSubmitJobs), and these are 25"_s),
             qPrintable(queueLimitProblem(answer, 25)));
    QVERIFY(queueLimitProblem("@\n", 5000).isEmpty());
    QVERIFY(arrayLimitProblem(SchedulerKind::Slurm, "\n@\n\n", 5000).isEmpty());
}

TORCHDECK_TEST_MAIN(TestArrayScript)
#include "tst_arrayscript.moc"
