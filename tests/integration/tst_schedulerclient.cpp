// SchedulerClient on the sandbox: real sbatch/squeue/sacct -c/scancel and the PBS wrappers' qsub/qstat,
// and a 2-rank trainer job rendered by core/jobs, polled to completion while its metrics are tailed.
#include "core/jobs/jobscript.h"
#include "remote/connection.h"
#include "remote/schedulerclient.h"
#include "sandboxconnection.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::remote;

class TestSchedulerClient : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void slurmJobRunsToCompletion();
    void slurmJobIsCancelled();
    void pbsJobThroughTheWrappers();
    void twoRankTrainerJobWithLiveMetrics();

private:
    QString submit(SchedulerClient &client, const QString &script, const QString &name);
    JobInfo pollUntilFinal(SchedulerClient &client, const QString &id, int timeoutMs);

    std::unique_ptr<Connection> m_connection;
    QTemporaryDir m_work;
};

void TestSchedulerClient::initTestCase()
{
    if (!testing::sandboxRunning())
        QSKIP("the sandbox is not running (run through ctest, which starts it)");
    QString error;
    m_connection = testing::openSandboxConnection(&error);
    QVERIFY2(m_connection, qPrintable(error));
}

QString TestSchedulerClient::submit(SchedulerClient &client, const QString &script, const QString &name)
{
    QSignalSpy submitted(&client, &SchedulerClient::submitted);
    QString error;
    connect(&client, &SchedulerClient::failed, this, [&](const QString &e) { error = e; });
    client.submit(script, m_work.path() + QStringLiteral("/jobs dir"), name);
    if (!QTest::qWaitFor([&] { return !submitted.isEmpty() || !error.isEmpty(); }, 20000) || !error.isEmpty()) {
        qWarning("submit failed: %s", qPrintable(error));
        return {};
    }
    return submitted.first().first().toString();
}

JobInfo TestSchedulerClient::pollUntilFinal(SchedulerClient &client, const QString &id, int timeoutMs)
{
    JobInfo last;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        QSignalSpy polled(&client, &SchedulerClient::polled);
        const int before = client.commandsRun();
        client.poll({id});
        if (!polled.wait(10000))
            break;
        const auto jobs = polled.first().first().value<JobListResult>();
        // One command while the queue lists the job; a second only once it has left the queue.
        if (client.commandsRun() - before > (jobs.find(id) && !isFinal(jobs.find(id)->state) ? 1 : 2))
            qWarning("poll cost %d commands", client.commandsRun() - before);
        if (const JobInfo *job = jobs.find(id)) {
            last = *job;
            if (isFinal(job->state))
                return last;
        }
        QTest::qWait(300);
    }
    return last;
}

void TestSchedulerClient::slurmJobRunsToCompletion()
{
    SchedulerClient client(m_connection.get(), SchedulerCommands::slurm(SlurmHistory::CompletionFile));
    const QString id =
        submit(client, QStringLiteral("#!/bin/bash\n#SBATCH --job-name=td-ok\necho done\n"), QStringLiteral("ok.sh"));
    QVERIFY(!id.isEmpty());
    const JobInfo job = pollUntilFinal(client, id, 60000);
    QCOMPARE(job.state, JobState::Completed);
    QCOMPARE(job.name, QStringLiteral("td-ok"));
    QVERIFY(QFile::exists(m_work.path() + QStringLiteral("/jobs dir/slurm-") + id + QStringLiteral(".out")));
}

void TestSchedulerClient::slurmJobIsCancelled()
{
    SchedulerClient client(m_connection.get(), SchedulerCommands::slurm(SlurmHistory::CompletionFile));
    const QString id = submit(client, QStringLiteral("#!/bin/bash\nsleep 300\n"), QStringLiteral("sleep.sh"));
    QVERIFY(!id.isEmpty());
    QSignalSpy done(&client, &SchedulerClient::actionDone);
    client.act(SchedulerAction::Cancel, {id});
    QVERIFY(done.wait(10000));
    QCOMPARE(pollUntilFinal(client, id, 60000).state, JobState::Cancelled);
}

void TestSchedulerClient::pbsJobThroughTheWrappers()
{
    SchedulerClient client(m_connection.get(), SchedulerCommands::pbs(PbsDialect::Torque));
    // The wrapper's qsub passes the script path to sbatch unquoted: a path without spaces here.
    QSignalSpy submitted(&client, &SchedulerClient::submitted);
    client.submit(QStringLiteral("#!/bin/bash\n#PBS -N td-pbs\n#PBS -l walltime=00:01:00\necho pbs\n"),
                  m_work.path() + QStringLiteral("/pbs"), QStringLiteral("job.pbs"));
    QVERIFY(submitted.wait(20000));
    const QString id = submitted.first().first().toString();
    const JobInfo job = pollUntilFinal(client, id, 60000);
    QCOMPARE(job.state, JobState::Completed);
    QCOMPARE(job.name, QStringLiteral("td-pbs"));
}

void TestSchedulerClient::twoRankTrainerJobWithLiveMetrics()
{
    const QString trainer = qEnvironmentVariable("TORCHDECK_TRAIN_BINARY");
    if (trainer.isEmpty() || !QFile::exists(trainer))
        QSKIP("torchdeck-train is not built in this tree (TORCHDECK_BUILD_TRAINER=OFF)");
    const QString metrics = m_work.path() + QStringLiteral("/trainer/metrics.jsonl");
    JobSpec spec;
    spec.name = QStringLiteral("td-ae");
    spec.tasksPerNode = 2;
    spec.wallTimeSeconds = 600;
    spec.signalLeadSeconds = 60;
    spec.workingDirectory = m_work.path() + QStringLiteral("/trainer");
    spec.trainerPath = trainer;
    spec.trainerArgs = {QStringLiteral("--model"),   QStringLiteral("ae"),        QStringLiteral("--epochs"),
                        QStringLiteral("1"),         QStringLiteral("--limit"),   QStringLiteral("2048"),
                        QStringLiteral("--threads"), QStringLiteral("1"),         QStringLiteral("--log-every"),
                        QStringLiteral("4"),         QStringLiteral("--metrics"), metrics};
    ClusterCaps caps;
    caps.cpusPerNode = 2;
    const ScriptResult script = renderSlurmScript(spec, caps);
    QVERIFY2(script.ok(), qPrintable(formatJobSpecErrors(script.errors)));

    SchedulerClient client(m_connection.get(), SchedulerCommands::slurm(SlurmHistory::CompletionFile));
    QSignalSpy submitted(&client, &SchedulerClient::submitted);
    client.submit(script.script, spec.workingDirectory, QStringLiteral("ae.sh"));
    QVERIFY(submitted.wait(20000));
    RemoteTail *tail = m_connection->tail(metrics);
    QByteArray received;
    connect(tail, &RemoteTail::data, this, [&](qint64, const QByteArray &bytes) { received += bytes; });
    const JobInfo job = pollUntilFinal(client, submitted.first().first().toString(), 300000);
    QCOMPARE(job.state, JobState::Completed);
    QTRY_VERIFY_WITH_TIMEOUT(received.contains("\"event\":\"stop\""), 10000);
    QVERIFY(received.contains("\"world_size\":2"));
    QVERIFY(received.count("\"event\":\"step\"") >= 2);
    QFile file(metrics);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(received, file.readAll()); // what was tailed live is the whole file, byte for byte
}

QTEST_GUILESS_MAIN(TestSchedulerClient)
#include "tst_schedulerclient.moc"
