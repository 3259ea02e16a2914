// core/runs/launchrequest.h: what a submission sends, decided once for both fronts and the preview.
#include "core/jobs/jobspecvalidation.h"
#include "core/jobs/runlayout.h"
#include "core/runs/launchrequest.h"
#include "core/store/runstore.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QTest>

using namespace torchdeck;

namespace {
JobSpec trainerJob(SchedulerKind scheduler = SchedulerKind::Slurm)
{
    JobSpec spec;
    spec.launch = scheduler == SchedulerKind::Slurm ? LaunchMethod::Srun : LaunchMethod::Mpirun;
    spec.name = QStringLiteral("preview");
    spec.tasksPerNode = 2;
    spec.wallTimeSeconds = 600;
    spec.trainerArgs = {QStringLiteral("--model"), QStringLiteral("ae"), QStringLiteral("--epochs"),
                        QStringLiteral("2")};
    return spec;
}

ClusterProfile profileWithSettings(SchedulerKind scheduler)
{
    ClusterProfile profile;
    profile.name = QStringLiteral("cluster");
    profile.scheduler = scheduler;
    profile.partition = QStringLiteral("gpu");
    profile.account = QStringLiteral("proj42");
    profile.modules = {QStringLiteral("cmake"), QStringLiteral("pytorch/2.1")};
    return profile;
}
} // namespace

class TestLaunchRequest : public QObject {
    Q_OBJECT
private slots:
    void aNewTrainerRunResumesAutomatically()
    {
        const ClusterProfile profile = profileWithSettings(SchedulerKind::Slurm);
        QCOMPARE(newRunRequest(profile, trainerJob()).resume, ResumeFrom::latest());
        JobSpec own = trainerJob();
        own.trainerArgs << QStringLiteral("--resume") << QStringLiteral("none");
        QCOMPARE(newRunRequest(profile, own).resume, ResumeFrom()); // the user's --resume stays
        JobSpec custom = trainerJob();
        custom.commandKind = CommandKind::Custom;
        custom.customCommand = QStringLiteral("python3 train.py");
        QCOMPARE(newRunRequest(profile, custom).resume, ResumeFrom());
        QCOMPARE(newRunRequest(profile, custom, QStringLiteral("#!/bin/sh\n")).script, QStringLiteral("#!/bin/sh\n"));
    }

    void theSubmissionAppliesTheProfileAndTheRunLayout_data()
    {
        QTest::addColumn<int>("scheduler");
        QTest::addColumn<QString>("partition");
        QTest::addColumn<QString>("account");
        QTest::addRow("slurm") << int(SchedulerKind::Slurm) << QStringLiteral("#SBATCH --partition=gpu")
                               << QStringLiteral("#SBATCH --account=proj42");
        QTest::addRow("pbs") << int(SchedulerKind::Pbs) << QStringLiteral("#PBS -q gpu")
                             << QStringLiteral("#PBS -A proj42");
    }
    void theSubmissionAppliesTheProfileAndTheRunLayout()
    {
        QFETCH(int, scheduler);
        QFETCH(QString, partition);
        QFETCH(QString, account);
        LaunchRequest request =
            newRunRequest(profileWithSettings(SchedulerKind(scheduler)), trainerJob(SchedulerKind(scheduler)));
        request.runId = QStringLiteral("0123-run");
        const SubmissionScript rendered = renderSubmission(request, QStringLiteral("/scratch/alice/.torchdeck"),
                                                           QStringLiteral("/opt/torchdeck-train"));
        QVERIFY2(rendered.ok(), qPrintable(formatJobSpecErrors(rendered.errors)));
        QCOMPARE(rendered.runDirectory, QStringLiteral("/scratch/alice/.torchdeck/runs/0123-run"));
        QVERIFY2(rendered.script.contains(partition), qPrintable(rendered.script));
        QVERIFY2(rendered.script.contains(account), qPrintable(rendered.script));
        QVERIFY(rendered.script.contains(QStringLiteral("module load pytorch/2.1")));
        QVERIFY(rendered.script.contains(QStringLiteral("/opt/torchdeck-train")));
        QVERIFY(rendered.script.contains(QStringLiteral("/scratch/alice/.torchdeck/runs/0123-run/metrics-0.jsonl")));
        QVERIFY(rendered.script.contains(QStringLiteral("--resume auto")) ||
                rendered.script.contains(QStringLiteral("--resume=auto")));
        // The spec's own values win over the profile's.
        request.spec.partition = QStringLiteral("debug");
        QVERIFY(!renderSubmission(request, QStringLiteral("/w"), QStringLiteral("/t")).script.contains(partition));
    }

    void beforeConnectingThePathsArePlaceholders()
    {
        LaunchRequest request = newRunRequest(profileWithSettings(SchedulerKind::Slurm), trainerJob());
        request.runId = QStringLiteral("run");
        const SubmissionScript rendered = renderSubmission(
            request, kUnknownWorkDirectory, WorkLayout{kUnknownWorkDirectory}.trainerBinary(QStringLiteral("abc")));
        QVERIFY2(rendered.ok(), qPrintable(formatJobSpecErrors(rendered.errors)));
        QVERIFY(rendered.script.contains(QStringLiteral("/@WORKDIR@/runs/run")));
        QVERIFY(rendered.script.contains(QStringLiteral("/@WORKDIR@/trainer/abc/build/torchdeck-train")));
    }

    // Profiles allow "~/..." and "$HOME/..." for the prebuilt trainer: the script lets the cluster's shell
    // expand $HOME instead of quoting the tilde into a path that does not exist.
    void aHomeRelativeTrainerIsExpandedOnTheCluster_data()
    {
        QTest::addColumn<QString>("binary");
        QTest::addRow("tilde") << QStringLiteral("~/bin/torchdeck-train");
        QTest::addRow("$HOME") << QStringLiteral("$HOME/bin/torchdeck-train");
    }
    void aHomeRelativeTrainerIsExpandedOnTheCluster()
    {
        QFETCH(QString, binary);
        LaunchRequest request = newRunRequest(profileWithSettings(SchedulerKind::Slurm), trainerJob());
        request.runId = QStringLiteral("run");
        const SubmissionScript rendered = renderSubmission(request, QStringLiteral("/w"), binary);
        QVERIFY2(rendered.ok(), qPrintable(formatJobSpecErrors(rendered.errors)));
        QVERIFY2(rendered.script.contains(QStringLiteral("\"$HOME\"/bin/torchdeck-train")),
                 qPrintable(rendered.script));
        QVERIFY(!rendered.script.contains(QStringLiteral("'~/")));
        QVERIFY(!rendered.script.contains(QStringLiteral("'$HOME")));
    }

    void aClustersOwnCommandIsItsVariant()
    {
        JobSpec spec = trainerJob();
        spec.commandKind = CommandKind::Custom;
        spec.customCommand = QStringLiteral("python3 train.py");
        spec.commandOn = {{QStringLiteral("elsewhere"), QStringLiteral("python3 elsewhere.py")},
                          {QStringLiteral("cluster"), QStringLiteral("python3 here.py")}};
        LaunchRequest request = newRunRequest(profileWithSettings(SchedulerKind::Slurm), spec);
        request.runId = QStringLiteral("run");
        const SubmissionScript here = renderSubmission(request, QStringLiteral("/w"), QStringLiteral("/t"));
        QVERIFY2(here.ok(), qPrintable(formatJobSpecErrors(here.errors)));
        QVERIFY2(here.script.contains(QStringLiteral("python3 here.py")), qPrintable(here.script));
        QVERIFY(!here.script.contains(QStringLiteral("train.py")));
        request.profile.name = QStringLiteral("third");
        const SubmissionScript third = renderSubmission(request, QStringLiteral("/w"), QStringLiteral("/t"));
        QVERIFY2(third.script.contains(QStringLiteral("python3 train.py")), qPrintable(third.script));
        // Without a command of one's own, a variant is refused: the trainer's run has no command to vary.
        spec.commandKind = CommandKind::Trainer;
        request = newRunRequest(profileWithSettings(SchedulerKind::Slurm), spec);
        request.runId = QStringLiteral("run");
        const SubmissionScript refused = renderSubmission(request, QStringLiteral("/w"), QStringLiteral("/t"));
        QVERIFY(!refused.ok());
        QCOMPARE(refused.errors.constFirst().field, QStringLiteral("commandOn"));
    }

    void anEditedScriptIsSentAsItIs()
    {
        LaunchRequest request = newRunRequest(profileWithSettings(SchedulerKind::Slurm), trainerJob(),
                                              QStringLiteral("#!/bin/bash\necho mine\n"));
        request.runId = QStringLiteral("run");
        const SubmissionScript rendered = renderSubmission(request, QStringLiteral("/w"), QStringLiteral("/t"));
        QCOMPARE(rendered.script, QStringLiteral("#!/bin/bash\necho mine\n"));
        QCOMPARE(rendered.runDirectory, QStringLiteral("/w/runs/run"));
    }

    void resumeRefusesARunThatStillRuns()
    {
        RunStore store;
        QVERIFY(store.open(QStringLiteral(":memory:")).ok());
        RunRecord run;
        run.id = QStringLiteral("r1");
        run.name = QStringLiteral("n");
        run.cluster = QStringLiteral("cluster");
        run.specJson = QString::fromUtf8(QJsonDocument(trainerJob().toJson()).toJson());
        JobRecord job;
        job.runId = run.id;
        job.jobId = QStringLiteral("7");
        job.state = QStringLiteral("running");
        QVERIFY(store.recordSubmission(run, job).ok());
        QString error;
        const ClusterProfile profile = profileWithSettings(SchedulerKind::Slurm);
        QVERIFY(!resumeRequest(store, profile, run, ResumeFrom::latest(), {}, &error));
        QVERIFY2(error.contains(QStringLiteral("still running")), qPrintable(error));
        // A move replaces the job that waits (--move-after), only that one and only while it waits.
        QVERIFY(!resumeRequest(store, profile, run, ResumeFrom::latest(), {}, &error, QStringLiteral("7")));
        QVERIFY(store.updateJobState(run.id, 0, QStringLiteral("pending"), -1).ok());
        QVERIFY(!resumeRequest(store, profile, run, ResumeFrom::latest(), {}, &error, QStringLiteral("8")));
        const auto moved = resumeRequest(store, profile, run, ResumeFrom::latest(), {}, &error, QStringLiteral("7"));
        QVERIFY(moved);
        QCOMPARE(moved->attempt, 1);
        QVERIFY(store.updateJobState(run.id, 0, QStringLiteral("timeout"), -1).ok());
        const auto request = resumeRequest(store, profile, run, ResumeFrom::latest(), QStringLiteral("5"), &error);
        QVERIFY(request);
        QCOMPARE(request->attempt, 1);
        QCOMPARE(request->resume, ResumeFrom::latest());
        QCOMPARE(trainerOption(request->spec.trainerArgs, QStringLiteral("--epochs")), QStringLiteral("5"));
    }
};

TORCHDECK_TEST_MAIN(TestLaunchRequest)
#include "tst_launchrequest.moc"
