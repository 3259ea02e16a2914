// The records a launch writes (core/runs/launchrecords.h): the run and the job it claims, and the job once the
// scheduler accepted it.
#include "core/jobs/runlayout.h"
#include "core/runs/launchrecords.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

namespace {

ClusterProfile slurm()
{
    ClusterProfile profile;
    profile.name = QStringLiteral("cluster");
    profile.scheduler = SchedulerKind::Slurm;
    return profile;
}

JobSpec trainerJob()
{
    JobSpec spec;
    spec.name = QStringLiteral("ae");
    spec.wallTimeSeconds = 600;
    spec.trainerArgs = {QStringLiteral("--model"), QStringLiteral("ae"), QStringLiteral("--epochs"),
                        QStringLiteral("4")};
    return spec;
}

JobSpec customJob()
{
    JobSpec spec = trainerJob();
    spec.commandKind = CommandKind::Custom;
    spec.customCommand = QStringLiteral("python3 train.py");
    spec.trainerArgs.clear();
    return spec;
}

LaunchRequest request(const JobSpec &spec, int attempt, const QString &resume)
{
    LaunchRequest launch = newRunRequest(slurm(), spec);
    launch.runId = QStringLiteral("0a1b2c3d-run");
    launch.attempt = attempt;
    launch.resume = ResumeFrom::fromText(resume);
    return launch;
}

const QString work = QStringLiteral("/home/u/.torchdeck");

} // namespace

class TestLaunchRecords : public QObject {
    Q_OBJECT
private slots:
    void claimedRecords_data()
    {
        QTest::addColumn<bool>("custom");
        QTest::addColumn<int>("attempt");
        QTest::addColumn<QString>("resume");
        QTest::addColumn<QString>("resumeFrom");
        QTest::addRow("a new trainer run") << false << 0 << "auto"
                                           << "";
        QTest::addRow("restarted from its latest") << false << 1 << "auto"
                                                   << "";
        QTest::addRow("from scratch") << false << 1 << "none"
                                      << "";
        QTest::addRow("branched from a checkpoint") << false << 2 << "/home/u/ckpt/step-100.pt"
                                                    << "/home/u/ckpt/step-100.pt";
        QTest::addRow("a custom command") << true << 0 << ""
                                          << "";
    }
    void claimedRecords()
    {
        QFETCH(bool, custom);
        QFETCH(int, attempt);
        QFETCH(QString, resume);
        QFETCH(QString, resumeFrom);
        const LaunchRequest launch = request(custom ? customJob() : trainerJob(), attempt, resume);
        const SubmissionScript rendered = renderSubmission(launch, work, QStringLiteral("/bin/torchdeck-train"));
        QVERIFY2(rendered.ok(), qPrintable(formatJobSpecErrors(rendered.errors)));
        RunRecord stored;
        stored.id = launch.runId;
        stored.message = QStringLiteral("restarting: wall time");
        stored.epochsDone = 2;
        const LaunchRecords records =
            claimedLaunchRecords(launch, rendered, attempt > 0 ? stored : std::optional<RunRecord>{});
        QCOMPARE(records.run.id, launch.runId);
        QCOMPARE(records.run.cluster, QStringLiteral("cluster"));
        QCOMPARE(records.run.state, QStringLiteral("pending"));
        QCOMPARE(records.run.script, rendered.script);
        QCOMPARE(records.run.spec().spec, launch.spec);
        QCOMPARE(records.run.message, QString()); // a new attempt starts with nothing to say
        QCOMPARE(records.run.epochsDone, attempt > 0 ? 2 : 0);
        QCOMPARE(records.run.epochsTotal, custom ? qint64(kNoCount) : 4);
        QCOMPARE(records.job.runId, launch.runId);
        QCOMPARE(records.job.attempt, attempt);
        QCOMPARE(records.job.state, QStringLiteral("pending"));
        QVERIFY(records.job.jobId.isEmpty());
        QCOMPARE(records.job.resumeFrom, resumeFrom);
        QCOMPARE(records.job.metricsPath, RunLayout{work + QStringLiteral("/runs/0a1b2c3d-run")}.metricsPath(attempt));
    }

    void theSubmittedJobKnowsItsLogs()
    {
        const LaunchRequest launch = request(trainerJob(), 0, QStringLiteral("auto"));
        const SubmissionScript rendered = renderSubmission(launch, work, QStringLiteral("/bin/torchdeck-train"));
        const JobRecord claimed = claimedLaunchRecords(launch, rendered, {}).job;
        const QDateTime when = QDateTime(QDate(2026, 11, 26), QTime(12, 0), Qt::UTC);
        const JobRecord job = submittedJobRecord(claimed, rendered.attemptSpec, QStringLiteral("4242"), when);
        QCOMPARE(job.jobId, QStringLiteral("4242"));
        QCOMPARE(job.submitted, when);
        QVERIFY2(job.stdoutPath.startsWith(work + QStringLiteral("/runs/0a1b2c3d-run/")), qPrintable(job.stdoutPath));
        QVERIFY2(job.stdoutPath.contains(QStringLiteral("4242")), qPrintable(job.stdoutPath));
        QCOMPARE(job.metricsPath, claimed.metricsPath);
    }

    void aClaimKeepsItsArray()
    {
        // A task's claim, taken over, must find its array again rather than submit the run a second time.
        LaunchRequest launch = request(trainerJob(), 0, QStringLiteral("auto"));
        launch.array = {QStringLiteral("ae-0a1b2c3d-a0"), work + QStringLiteral("/arrays/0a1b2c3d-run/job-0.sh"), 2};
        const auto kept = launchRequestFromJson(slurm(), launchRequestJson(launch, QStringLiteral("#!/bin/bash\n")));
        QVERIFY(kept);
        QCOMPARE(kept->array.name, launch.array.name);
        QCOMPARE(kept->array.script, launch.array.script);
        QCOMPARE(kept->array.task, 2);
        launch.array = {};
        QVERIFY(!launchRequestFromJson(slurm(), launchRequestJson(launch, {}))->array.isSet());
    }
};

TORCHDECK_TEST_MAIN(TestLaunchRecords)
#include "tst_launchrecords.moc"
