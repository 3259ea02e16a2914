// The desktop window does what the terminal does, as a client of the agent, against the sandbox: the window
// joining the agent a terminal command started (which restarted the command's run with no window open), a
// chain of 3, the automatic restart switched per run, and the form's preview equal to the submitted script for
// Slurm and PBS. Most cases run the agent in the test's process (TestAgent); the restart at a real wall time
// with no front at all is requeue.walltime's.
#include "client/sessionoperation.h"
#include "core/metrics/metricscsv.h"
#include "core/store/runstore.h"
#include "gui/clusterlistmodel.h"
#include "gui/jobform.h"
#include "gui/logfollower.h"
#include "gui/logpanel.h"
#include "gui/newjobdialog.h"
#include "gui/restartfields.h"
#include "gui/runtreemodel.h"
#include "gui/runview.h"
#include "gui/scriptpreview.h"
#include "guisandbox.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

namespace {
JobSpec trainerJob(const QString &name, int tasks, const QStringList &args)
{
    JobSpec spec;
    spec.name = name;
    spec.tasksPerNode = tasks;
    spec.wallTimeSeconds = 600;
    spec.trainerArgs =
        QStringList{QStringLiteral("--model"),       QStringLiteral("ae"),        QStringLiteral("--data"),
                    QStringLiteral("fashion-mnist"), QStringLiteral("--threads"), QStringLiteral("1")} +
        args;
    return spec;
}

// The seeded job of the terminal's requeue tests: 3 epochs of 938 steps, one rank.
JobSpec chainJob(const QString &name)
{
    return trainerJob(name, 1,
                      {QStringLiteral("--batch-size"), QStringLiteral("64"), QStringLiteral("--log-every"),
                       QStringLiteral("100"), QStringLiteral("--epochs"), QStringLiteral("3"), QStringLiteral("--seed"),
                       QStringLiteral("7"), QStringLiteral("--lr"), QStringLiteral("0.001"),
                       QStringLiteral("--optimizer"), QStringLiteral("adam")});
}

// A small 2-rank job that checkpoints and asks to be requeued at step 40 of 96.
JobSpec interruptedJob(const QString &name)
{
    return trainerJob(name, 2,
                      {QStringLiteral("--limit"), QStringLiteral("4096"), QStringLiteral("--batch-size"),
                       QStringLiteral("64"), QStringLiteral("--log-every"), QStringLiteral("16"),
                       QStringLiteral("--epochs"), QStringLiteral("3"), QStringLiteral("--seed"), QStringLiteral("7"),
                       QStringLiteral("--lr"), QStringLiteral("0.001"), QStringLiteral("--optimizer"),
                       QStringLiteral("adam"), QStringLiteral("--signal-at-step"), QStringLiteral("40")});
}

// Runs a program to its end: its standard output, then its standard error.
QString run(const QString &program, const QStringList &args, int *exitCode = nullptr)
{
    QProcess process;
    process.start(program, args);
    process.waitForFinished(120000);
    if (exitCode)
        *exitCode = process.exitCode();
    return QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
}

QString jsonLineValue(const QString &output, const QString &key)
{
    for (const QString &line : output.split(u'\n')) {
        const QJsonObject object = QJsonDocument::fromJson(line.toUtf8()).object();
        if (object.contains(key))
            return object.value(key).toString();
    }
    return {};
}

// The steps of the visible curve (rows no later attempt discarded), in the order they were logged.
QStringList stepsKept(RunStore &store, const QString &runId)
{
    QStringList steps;
    const QStringList lines = metricsCsv(store.metrics(runId).value).split(u'\n', Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        const QStringList cells = line.split(u',');
        if (cells.size() >= 12 && cells.at(1) == u"step" && cells.at(11) == u"0")
            steps.append(cells.at(4));
    }
    return steps;
}

QString finalCheckpoint(const QString &home, const QString &runId)
{
    QDir dir(home + QStringLiteral("/work/runs/") + runId + QStringLiteral("/checkpoints"));
    const QStringList files = dir.entryList({QStringLiteral("checkpoint-*.pt")}, QDir::Files, QDir::Name);
    return files.isEmpty() ? QString() : dir.filePath(files.constLast());
}

// The two models agree to 1e-6 (loaded with PyTorch, as users load them); what Python said otherwise.
QString sameParameters(const QString &a, const QString &b)
{
    const QString script = QStringLiteral("import sys, torch\n"
                                          "a, b = (torch.load(p)['model'] for p in sys.argv[1:3])\n"
                                          "d = max((a[k].float() - b[k].float()).abs().max().item() for k in a)\n"
                                          "print(f'max |difference| {d:.3g}')\n"
                                          "sys.exit(0 if d <= 1e-6 else 1)\n");
    int code = -1;
    const QString said = run(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), script, a, b}, &code);
    return code == 0 ? QString() : said;
}

QList<JobRecord> jobsOf(MainWindow &window, const QString &runId)
{
    return window.agent()->store()->jobs(runId).value;
}
} // namespace

class TestGuiSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(sandboxRunning(), "the sandbox fixture is not running (ctest -R 'sandbox.start|gui')");
        QVERIFY(m_home.isValid());
        if (!qEnvironmentVariableIsEmpty("TORCHDECK_FRONT_RUN"))
            return; // one front among others, on the store and profiles of the caller (term.two_fronts)
        const QString problem = prepareSandboxHome(m_home.path());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The window as one front among others on one store (term_test.sh's two_fronts starts it): it opens,
    // follows the run it is told of, restarts it if it gets there first, and closes when the run has ended.
    void followsARunAsOneOfSeveralFronts()
    {
        const QString runId = qEnvironmentVariable("TORCHDECK_FRONT_RUN");
        if (runId.isEmpty())
            QSKIP("only as a front of term.two_fronts (TORCHDECK_FRONT_RUN)");
        useTheRealAgent();
        MainWindow window; // attaches to the agent the other fronts share
        window.show();
        window.agent()->setPollInterval(300);
        QTRY_VERIFY_WITH_TIMEOUT(window.runModel()->run(runId), 10000);
        QCOMPARE(waitForRunEnd(window, runId, 200000), QStringLiteral("completed"));
    }

    // The window as one front of term.many_jobs: it shows one of many running runs until it ends, and its chart's
    // copy of the run holds every step the job wrote, once (TORCHDECK_FRONT_STEPS).
    void showsOneOfManyRuns()
    {
        const QString runId = qEnvironmentVariable("TORCHDECK_FRONT_RUN");
        if (runId.isEmpty() || qEnvironmentVariableIsEmpty("TORCHDECK_FRONT_STEPS"))
            QSKIP("only as a front of term.many_jobs (TORCHDECK_FRONT_RUN, TORCHDECK_FRONT_STEPS)");
        useTheRealAgent();
        MainWindow window;
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(window.runModel()->run(runId), 30000);
        window.selectRun(runId);
        // Its log tab streams the log while the job runs (an ended job's is read once, later).
        window.runView()->tabs()->setCurrentWidget(window.runView()->logPanel());
        QTRY_VERIFY_WITH_TIMEOUT(window.runView()->logPanel()->follower()->isStreaming(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(window.runView()->logPanel()->text().contains(QStringLiteral("step 2\n")), 60000);
        const auto jobs = window.agent()->store()->jobs(runId);
        QVERIFY(!jobs.value.isEmpty() && !jobs.value.constLast().hasEnded()); // read as it ran, not at its end
        QCOMPARE(waitForRunEnd(window, runId, 240000), QStringLiteral("completed"));
        const RunSeries *series = window.agent()->series(runId);
        QVERIFY(series);
        const MetricSeries &steps = series->series(SeriesKind::TrainLoss);
        QCOMPARE(steps.size(), qEnvironmentVariableIntValue("TORCHDECK_FRONT_STEPS"));
        for (qsizetype i = 0; i < steps.size(); ++i)
            QCOMPARE(steps.x(i), double(i + 1));
    }

    void previewIsTheSubmission_data()
    {
        QTest::addColumn<int>("scheduler");
        QTest::addColumn<QStringList>("expected");
        QTest::addRow("slurm") << int(SchedulerKind::Slurm)
                               << QStringList{QStringLiteral("#SBATCH --partition=debug"),
                                              QStringLiteral("#SBATCH --account=proj42"),
                                              QStringLiteral("module load cmake")};
        QTest::addRow("pbs") << int(SchedulerKind::Pbs)
                             << QStringList{QStringLiteral("#PBS -q debug"), QStringLiteral("#PBS -A proj42"),
                                            QStringLiteral("module load cmake")};
    }
    // The script the form shows is the script that is submitted, byte for byte, with the profile's partition,
    // account and modules applied; before connecting, the paths not known yet are marked placeholders.
    void previewIsTheSubmission()
    {
        QFETCH(int, scheduler);
        QFETCH(QStringList, expected);
        ProfileStore profiles;
        QString error;
        QVERIFY(profiles.load(&error));
        ClusterProfile profile = profiles.profile(kSandboxHost);
        profile.scheduler = SchedulerKind(scheduler);
        profile.pbsDialect = PbsDialect::Torque;
        profile.partition = QStringLiteral("debug");
        profile.account = QStringLiteral("proj42");
        profile.modules = {QStringLiteral("cmake")};
        profiles.put(profile);
        QVERIFY(profiles.save(&error));

        TestAgent agent;
        QVERIFY2(agent.started, qPrintable(agent.error));
        MainWindow window;
        NewJobDialog *dialog = window.openNewJob();
        dialog->setCluster(kSandboxHost);
        JobSpec spec = interruptedJob(QStringLiteral("previewed"));
        if (profile.scheduler == SchedulerKind::Pbs) {
            spec.launch = LaunchMethod::Mpirun;
            spec.mpiAllowRunAsRoot = true;
        }
        dialog->form()->setSpec(spec);
        QVERIFY2(dialog->form()->errors().isEmpty(), qPrintable(formatJobSpecErrors(dialog->form()->errors())));
        ScriptPreview *preview = dialog->form()->scriptPreview();
        QVERIFY2(preview->text().contains(QStringLiteral("/@WORKDIR@/runs/") + dialog->plannedRunId()),
                 qPrintable(preview->text()));
        QTRY_VERIFY_WITH_TIMEOUT(!preview->text().contains(QStringLiteral("@WORKDIR@")), 30000);
        const QString previewed = preview->text();
        for (const QString &line : expected)
            QVERIFY2(previewed.contains(line), qPrintable(line + QStringLiteral(" not in:\n") + previewed));
        QVERIFY(previewed.contains(m_home.path() + QStringLiteral("/work/runs/") + dialog->plannedRunId()));

        QSignalSpy submitted(dialog, &NewJobDialog::submitted);
        dialog->submit();
        QTRY_VERIFY_WITH_TIMEOUT(!submitted.isEmpty(), 60000);
        const auto result = submitted.constFirst().constFirst().value<LaunchResult>();
        QCOMPARE(result.script, previewed);
        QFile sent(result.runDirectory + QStringLiteral("/job-0.sh"));
        QVERIFY(sent.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(sent.readAll()), previewed);
        QCOMPARE(window.agent()->store()->run(result.runId).value->script, previewed);
        // The module does not exist on the sandbox: whatever the job does, it is not needed any more (it may have
        // ended before the scheduler hears the cancel, which then refuses it: either answer will do).
        SessionOperation *cancel = window.agent()->cancel(kSandboxHost, {result.runId});
        QSignalSpy cancelled(cancel, &SessionOperation::finished);
        QSignalSpy refused(cancel, &SessionOperation::failed);
        QVERIFY2(QTest::qWaitFor([&] { return !cancelled.isEmpty() || !refused.isEmpty(); }, 30000),
                 qPrintable(QStringLiteral("no answer to the cancel; the run is %1 with %2 job(s)")
                                .arg(window.agent()->store()->run(result.runId).value->state)
                                .arg(jobsOf(window, result.runId).size())));
    }

    // A run a terminal command submitted stops to be requeued after the command ended: the agent the command
    // started restarts it with no front attached. The window, opened later, attaches to that agent (no second
    // login) and shows the run across its two jobs.
    void joinsTheAgentOfATerminalRun()
    {
        useTheRealAgent();
        const JobSpec spec = interruptedJob(QStringLiteral("from-terminal"));
        QStringList args{QStringLiteral("submit"),       kSandboxHost,
                         QStringLiteral("--job"),        m_home.filePath(QStringLiteral("job.json")),
                         QStringLiteral("--no-requeue"), QStringLiteral("--json")};
        QFile job(args.at(3));
        QVERIFY(job.open(QIODevice::WriteOnly));
        job.write(QJsonDocument(spec.toJson()).toJson());
        job.close();
        int code = -1;
        const QString out = run(qEnvironmentVariable("TORCHDECK_BIN"), args, &code);
        QVERIFY2(code == 0, qPrintable(out));
        const QString runId = jsonLineValue(out, QStringLiteral("run"));
        QVERIFY2(!runId.isEmpty(), qPrintable(out));
        RunStore store;
        QVERIFY(store.open(qEnvironmentVariable("TORCHDECK_DATA_DIR") + QStringLiteral("/runs.sqlite")).ok());
        // No front is attached: the agent alone restarts the run.
        QTRY_COMPARE_WITH_TIMEOUT(store.jobs(runId).value.size(), 2, 120000);

        {
            MainWindow window;
            window.show();
            const QModelIndex cluster = window.clusterModel()->index(window.clusterModel()->rowOf(kSandboxHost));
            QTRY_COMPARE_WITH_TIMEOUT(cluster.data(ClusterListModel::StateRole).toInt(),
                                      int(ConnectionState::Connected), 30000);
            QCOMPARE(waitForRunEnd(window, runId), QStringLiteral("completed"));
            QCOMPARE(jobsOf(window, runId).size(), 2);
            QCOMPARE(jobsOf(window, runId).constLast().state, QStringLiteral("completed"));
            QCOMPARE(stepsKept(*window.agent()->store(), runId),
                     (QStringList{QStringLiteral("16"), QStringLiteral("32"), QStringLiteral("48"),
                                  QStringLiteral("64"), QStringLiteral("80"), QStringLiteral("96")}));
        }
        run(qEnvironmentVariable("TORCHDECK_BIN"), {QStringLiteral("agent"), QStringLiteral("stop")});
    }

    // "Submit as a chain of 3" does what `submit --chain 3` does: the attempts wait up front (afternotok), Slurm
    // starts the second after the first's exit 75, the third is cancelled once the run completed, and nothing
    // is restarted from outside.
    void submitsAChainOfThree()
    {
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        const FormSubmission reference = submitThroughForm(window, chainJob(QStringLiteral("reference")));
        QVERIFY2(reference.error.isEmpty(), qPrintable(reference.error));
        JobSpec chained = chainJob(QStringLiteral("chained"));
        chained.trainerArgs << QStringLiteral("--signal-at-step") << QStringLiteral("1000");
        NewJobDialog *dialog = window.openNewJob();
        dialog->setCluster(kSandboxHost);
        dialog->form()->setSpec(chained);
        dialog->form()->restartFields()->setChainLength(3);
        QCOMPARE(dialog->form()->chainLength(), 3);
        QSignalSpy submitted(dialog, &NewJobDialog::submitted);
        QSignalSpy restarted(window.agent(), &AgentClient::restarted);
        dialog->submit();
        QTRY_VERIFY_WITH_TIMEOUT(!submitted.isEmpty(), 60000);
        const QString runId = submitted.constFirst().constFirst().value<LaunchResult>().runId;
        QList<JobRecord> jobs = jobsOf(window, runId);
        QCOMPARE(jobs.size(), 3);
        const QString dependency =
            run(QStringLiteral("scontrol"), {QStringLiteral("show"), QStringLiteral("job"), jobs.at(2).jobId});
        QVERIFY2(dependency.contains(QStringLiteral("Dependency=afternotok:") + jobs.at(1).jobId),
                 qPrintable(dependency));

        QCOMPARE(waitForRunEnd(window, runId), QStringLiteral("completed"));
        QCOMPARE(waitForRunEnd(window, reference.result.runId), QStringLiteral("completed"));
        QTRY_COMPARE_WITH_TIMEOUT(jobsOf(window, runId).at(2).state, QStringLiteral("cancelled"), 30000);
        jobs = jobsOf(window, runId);
        QCOMPARE(jobs.size(), 3);
        QCOMPARE(jobs.at(0).exitCode, 75);
        QCOMPARE(jobs.at(1).state, QStringLiteral("completed"));
        QCOMPARE(restarted.count(), 0);
        QCOMPARE(stepsKept(*window.agent()->store(), runId),
                 stepsKept(*window.agent()->store(), reference.result.runId));
        const QString differs = sameParameters(finalCheckpoint(m_home.path(), reference.result.runId),
                                               finalCheckpoint(m_home.path(), runId));
        QVERIFY2(differs.isEmpty(), qPrintable(differs));
    }

    // The run view's switch: off, a job that stops to be requeued is left as it is (and the run says so);
    // on again, the next pass restarts it.
    void autoRestartIsSwitchedPerRun()
    {
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        const FormSubmission submission = submitThroughForm(window, interruptedJob(QStringLiteral("switched")));
        QVERIFY2(submission.error.isEmpty(), qPrintable(submission.error));
        const QString runId = submission.result.runId;
        window.selectRun(runId);
        auto *box = window.runView()->findChild<QCheckBox *>(QStringLiteral("autoRestart"));
        QVERIFY(box);
        QVERIFY(box->isChecked());
        QVERIFY2(box->text().contains(QStringLiteral("0 of 3 used")), qPrintable(box->text()));
        box->click();
        QTRY_VERIFY_WITH_TIMEOUT(!window.agent()->store()->run(runId).value->autoRestart, 10000);

        window.agent()->setPollInterval(500);
        QTRY_VERIFY_WITH_TIMEOUT(window.agent()->store()->run(runId).value->message.contains(
                                     QStringLiteral("automatic restart is off for this run")),
                                 120000);
        QCOMPARE(jobsOf(window, runId).size(), 1);

        box->click();
        QTRY_COMPARE_WITH_TIMEOUT(jobsOf(window, runId).size(), 2, 60000);
        QCOMPARE(waitForRunEnd(window, runId), QStringLiteral("completed"));
        QTRY_VERIFY(box->text().contains(QStringLiteral("1 of 3 used")));
    }

private:
    // The agent of a terminal command is the real binary's: the window attaches to it as the app does (and would
    // start one as the app does). The other cases run their agent in this process (TestAgent).
    static void useTheRealAgent() { AgentClient::setAgentProgram(qEnvironmentVariable("TORCHDECK_BIN")); }

    QTemporaryDir m_home{qEnvironmentVariable("TORCHDECK_SANDBOX_DIR") + QStringLiteral("/gui-session.XXXXXX")};
};

QTEST_MAIN(TestGuiSession)
#include "tst_guisession.moc"
