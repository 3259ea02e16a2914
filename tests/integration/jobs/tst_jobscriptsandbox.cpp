// Rendered job scripts submitted for real to the sandbox's Slurm (sbatch, and qsub from slurm-wlm-torque):
// hostile values reach the ranks byte for byte through real srun/mpirun, and a checkpoint signal sent to the
// batch shell is forwarded to the ranks, which exit 75, and the script requeues the job.
// Runs with the sandbox's environment (SLURM_CONF, TORCHDECK_SANDBOX_NODES), as ctest sets it up.
#include "core/jobs/jobscript.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {

QString hostile(const QString &tag)
{
    return tag + QStringLiteral(" it's \"q\" $(touch CANARY_") + tag + QStringLiteral(") `touch CANARY_") + tag +
           QStringLiteral("b` ${HOME}\nline2; \\ * ? [a] ~ λ\t|&;<>");
}

// Writes its argv and a few variables, NUL-separated, to rank-<rank> in the current directory.
const char *const kFakeTrainer = R"(#!/bin/bash
rank=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-x}} # under mpirun, SLURM_PROCID is the orted's
printf '%s\0' "$@" "PWD=$PWD" "ONE=$TEST_ONE" "MASTER_ADDR=$MASTER_ADDR" >"rank-$rank"
)";

QString run(const QString &program, const QStringList &args, const QString &cwd, int *exitCode = nullptr)
{
    QProcess p;
    p.setWorkingDirectory(cwd);
    p.start(program, args);
    p.waitForFinished(30000);
    if (exitCode)
        *exitCode = p.exitCode();
    return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError()).trimmed();
}

QString jobField(const QString &id, const QString &field)
{
    const QString line =
        run(QStringLiteral("scontrol"), {QStringLiteral("show"), QStringLiteral("job"), QStringLiteral("-o"), id},
            QDir::tempPath());
    const QRegularExpression re(QStringLiteral("\\b") + field + QStringLiteral("=(\\S*)"));
    return re.match(line).captured(1);
}

} // namespace

class TestJobScriptSandbox : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void srunPassesHostileValues();
    void signalForwardedAndRequeued();
    void qsubTorqueWithMpirun();

private:
    int m_nodes = 1;
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_wd;

    JobSpec spec() const;
    QString submit(const QString &script, const QString &command);
    bool waitState(const QString &id, const QString &state, int seconds);
    void verifyRanks(const JobSpec &spec, int ranks);
};

void TestJobScriptSandbox::initTestCase()
{
    if (qEnvironmentVariable("SLURM_CONF").isEmpty() ||
        QStandardPaths::findExecutable(QStringLiteral("sbatch")).isEmpty())
        QSKIP("the sandbox is not running (run through ctest, which starts it)");
    m_nodes = std::clamp(qEnvironmentVariableIntValue("TORCHDECK_SANDBOX_NODES"), 1, 2);
}

void TestJobScriptSandbox::init()
{
    // slurmd must reach the directory: /tmp, with a directive-safe name for the logs.
    m_dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/td-jobs-XXXXXX"));
    QVERIFY(m_dir->isValid());
    m_dir->setAutoRemove(qEnvironmentVariableIsEmpty("TORCHDECK_KEEP_TEST_DIRS")); // to look at a failure
    m_wd = m_dir->path() + QStringLiteral("/wd ") + hostile(QStringLiteral("wd"));
    QVERIFY(QDir().mkpath(m_wd));
    const QString bin = m_dir->path() + QStringLiteral("/bin ") + hostile(QStringLiteral("bin"));
    QVERIFY(QDir().mkpath(bin));
    QFile trainer(bin + QStringLiteral("/fake-trainer"));
    QVERIFY(trainer.open(QIODevice::WriteOnly));
    trainer.write(kFakeTrainer);
    trainer.close();
    trainer.setPermissions(trainer.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeGroup |
                           QFileDevice::ExeOther);
}

JobSpec TestJobScriptSandbox::spec() const
{
    JobSpec s;
    s.name = QStringLiteral("td-hostile");
    s.nodes = m_nodes;
    s.tasksPerNode = m_nodes == 1 ? 2 : 1;
    s.wallTimeSeconds = 10 * 60;
    s.workingDirectory = m_wd;
    s.environment = {{QStringLiteral("TEST_ONE"), hostile(QStringLiteral("env"))}};
    s.trainerPath =
        m_dir->path() + QStringLiteral("/bin ") + hostile(QStringLiteral("bin")) + QStringLiteral("/fake-trainer");
    // Values the trainer's parser takes as they are (validateJobSpec asks it), each a hostile word of its own.
    s.trainerArgs = {QStringLiteral("--metrics"), hostile(QStringLiteral("arg")),
                     QStringLiteral("--checkpoint-dir=$(touch CANARY_eq)"), QStringLiteral("--resume"),
                     QStringLiteral("%j %x %%")};
    s.outputPath = m_dir->path() + QStringLiteral("/%x-%j.out");
    return s;
}

QString TestJobScriptSandbox::submit(const QString &script, const QString &command)
{
    const QString path = m_dir->path() + QStringLiteral("/job.sh");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(script.toUtf8());
    file.close();
    const QStringList args = command == u"sbatch" ? QStringList{QStringLiteral("--parsable"), path} : QStringList{path};
    int rc = -1;
    const QString out = run(command, args, m_dir->path(), &rc);
    return rc == 0 ? out.section(u'.', 0, 0).section(u';', 0, 0) : QString();
}

bool TestJobScriptSandbox::waitState(const QString &id, const QString &state, int seconds)
{
    for (int i = 0; i < seconds * 5; ++i) {
        if (jobField(id, QStringLiteral("JobState")) == state)
            return true;
        QTest::qWait(200);
    }
    qWarning("job %s is %s, not %s", qPrintable(id), qPrintable(jobField(id, QStringLiteral("JobState"))),
             qPrintable(state));
    return false;
}

void TestJobScriptSandbox::verifyRanks(const JobSpec &s, int ranks)
{
    for (int rank = 0; rank < ranks; ++rank) {
        QFile file(m_wd + QStringLiteral("/rank-") + QString::number(rank));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        QStringList fields = QString::fromUtf8(file.readAll()).split(QChar(0));
        fields.removeLast(); // after the last NUL
        const QStringList expected =
            s.trainerArgs + QStringList{QStringLiteral("PWD=") + m_wd, QStringLiteral("ONE=") + s.environment[0].value};
        QCOMPARE(fields.mid(0, expected.size()), expected);
    }
    const QStringList canaries = QDir(m_wd).entryList({QStringLiteral("CANARY_*")}) +
                                 QDir(m_dir->path()).entryList({QStringLiteral("CANARY_*")});
    QVERIFY2(canaries.isEmpty(), qPrintable(canaries.join(u' ')));
}

void TestJobScriptSandbox::srunPassesHostileValues()
{
    const JobSpec s = spec();
    const ScriptResult r = renderSlurmScript(s, ClusterCaps());
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    const QString id = submit(r.script, QStringLiteral("sbatch"));
    QVERIFY(!id.isEmpty());
    QVERIFY(waitState(id, QStringLiteral("COMPLETED"), 60));
    verifyRanks(s, s.totalTasks());
}

void TestJobScriptSandbox::signalForwardedAndRequeued()
{
    JobSpec s = spec();
    s.commandKind = CommandKind::Custom;
    // The first attempt waits for USR1, reports it and asks for a requeue (rank 0 last, as when it writes the
    // checkpoint: nothing may kill it meanwhile); the rerun finishes.
    s.customCommand = QStringLiteral(
        "if [ \"${SLURM_RESTART_COUNT:-0}\" -gt 0 ]; then echo \"rank $SLURM_PROCID resumed\"; exit 0; fi\n"
        "got=; trap 'got=1' USR1; touch \"ready-$SLURM_PROCID\"\n"
        "while [ -z \"$got\" ]; do sleep 0.1; done\n"
        "if [ \"$SLURM_PROCID\" = 0 ]; then sleep 2; fi # rank 0 writes the checkpoint, the others leave\n"
        "echo \"rank $SLURM_PROCID got USR1\"; exit 75"); // srun interleaves the ranks' lines
    s.checkpointSignal = QStringLiteral("USR1");
    s.requeue = true;
    s.maxRestarts = 1;
    const ScriptResult r = renderSlurmScript(s, ClusterCaps());
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    const QString id = submit(r.script, QStringLiteral("sbatch"));
    QVERIFY(!id.isEmpty());
    for (int rank = 0; rank < s.totalTasks(); ++rank)
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(m_wd + QStringLiteral("/ready-") + QString::number(rank)), 60000);
    // What Slurm's --signal=B:USR1@lead does at the lead time, now.
    QCOMPARE(run(QStringLiteral("scancel"), {QStringLiteral("--signal=USR1"), QStringLiteral("--batch"), id}, m_wd),
             QString());
    QTRY_COMPARE_WITH_TIMEOUT(jobField(id, QStringLiteral("Restarts")), QStringLiteral("1"), 60000);
    // Slurm delays the rerun until the old job credential expires (cred_expire, 10 s in the sandbox):
    // forcing StartTime=now earlier gets the rerun killed ("Job credential revoked").
    QVERIFY(waitState(id, QStringLiteral("COMPLETED"), 150));
    QFile log(expandLogPath(s.outputPath, id, s.name));
    QVERIFY2(log.open(QIODevice::ReadOnly), qPrintable(log.fileName()));
    const QString text = QString::fromUtf8(log.readAll());
    for (int rank = 0; rank < s.totalTasks(); ++rank) {
        QVERIFY2(text.contains(QStringLiteral("rank %1 got USR1\n").arg(rank)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("rank %1 resumed").arg(rank)), qPrintable(text));
    }
    QVERIFY2(text.contains(QStringLiteral("torchdeck: requeueing job %1 (restart 1 of 1)").arg(id)), qPrintable(text));
}

void TestJobScriptSandbox::qsubTorqueWithMpirun()
{
    if (QStandardPaths::findExecutable(QStringLiteral("qsub")).isEmpty() ||
        QStandardPaths::findExecutable(QStringLiteral("mpirun")).isEmpty())
        QSKIP("slurm-wlm-torque's qsub or Open MPI's mpirun is not installed");
    JobSpec s = spec();
    s.launch = LaunchMethod::Mpirun;
    s.mpiAllowRunAsRoot = true;
    s.launcherOptions = {QStringLiteral("--mca"), QStringLiteral("btl"), QStringLiteral("self,tcp")};
    s.outputPath = QStringLiteral("log ") + hostile(QStringLiteral("log")) + QStringLiteral(" %j.out");
    ClusterCaps caps;
    caps.pbsDialect = PbsDialect::Torque;
    const ScriptResult r = renderPbsScript(s, caps);
    QVERIFY2(r.ok(), qPrintable(formatJobSpecErrors(r.errors)));
    const QString id = submit(r.script, QStringLiteral("qsub"));
    QVERIFY(!id.isEmpty());
    QVERIFY(waitState(id, QStringLiteral("COMPLETED"), 90));
    QCOMPARE(jobField(id, QStringLiteral("JobName")), s.name);
    QVERIFY(QFile::exists(m_wd + u'/' + expandLogPath(s.outputPath, id, s.name)));
    verifyRanks(s, s.totalTasks());
}

QTEST_GUILESS_MAIN(TestJobScriptSandbox)
#include "tst_jobscriptsandbox.moc"
