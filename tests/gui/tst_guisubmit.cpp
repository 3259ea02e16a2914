#include "core/store/keptlogs.h"
#include "core/store/runstore.h"
#include "gui/logpanel.h"
#include "gui/logpatterndialog.h"
#include "gui/runcharts.h"
#include "gui/runview.h"
#include "gui/scriptpreview.h"
#include "guisandbox.h"
#include "session/clustersession.h"

#include <QApplication>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

using namespace torchdeck;
using namespace torchdeck::testing;

// The desktop front against the real sandbox cluster: a job submitted through the new-job form runs to the
// end, and the window shows it live (state, charts, checkpoints, log).
class TestGuiSubmit : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { initSandboxTest(m_home, TrainerUse::Prebuilt); }

    void marksTheFieldTheClusterRefuses()
    {
        // First, before any submission read the sandbox's partitions: the form cannot know that 'short' allows half
        // an hour. The agent reads it as it submits and refuses; the form marks the wall time as its own problem.
        ShownWindow shown;
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        JobSpec spec = smallTrainerJob(1);
        spec.partition = QStringLiteral("short");
        spec.wallTimeSeconds = 3600;
        NewJobDialog *dialog = shown.window->openNewJob();
        dialog->setCluster(kSandboxHost);
        dialog->form()->setSpec(spec);
        QVERIFY2(dialog->form()->errors().isEmpty(), qPrintable(formatJobSpecErrors(dialog->form()->errors())));
        QSignalSpy failed(dialog->panel(), &SubmissionPanel::failed);
        dialog->submit();
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 120000);
        const QList<JobSpecError> errors = dialog->form()->errors();
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.constFirst().field, QStringLiteral("wallTimeSeconds"));
        QVERIFY2(errors.constFirst().message.contains(QStringLiteral("Partition 'short' allows at most 00:30:00")),
                 qPrintable(errors.constFirst().message));
        auto *wallTime = qobject_cast<QLineEdit *>(dialog->form()->field(QStringLiteral("wallTimeSeconds")));
        QVERIFY(wallTime && !wallTime->styleSheet().isEmpty());
        QVERIFY(shown.window->agent()->store()->runs().value.isEmpty()); // nothing was sent
        // The next change checks the fields again: twenty minutes fit.
        wallTime->setText(QStringLiteral("00:20:00"));
        QVERIFY2(dialog->form()->errors().isEmpty(), qPrintable(formatJobSpecErrors(dialog->form()->errors())));
        QVERIFY(wallTime->styleSheet().isEmpty());
        // The partitions the agent read (saved in the profile file, which the window follows) are the form's from
        // now on: an hour is refused before anything is sent.
        QTRY_VERIFY(dialog->form()->caps().partition(QStringLiteral("short")));
        wallTime->setText(QStringLiteral("01:00:00"));
        QCOMPARE(dialog->form()->errors().size(), 1);
        QVERIFY2(dialog->form()->errors().constFirst().message.contains(QStringLiteral("allows at most 00:30:00")),
                 qPrintable(formatJobSpecErrors(dialog->form()->errors())));
        dialog->close();
    }

    void submitsThroughTheFormAndSeesTheRunComplete()
    {
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        QVERIFY(window.clusterModel()->rowOf(kSandboxHost) >= 0);
        JobSpec spec = smallTrainerJob(2);
        spec.gpusPerTask = 1; // the sandbox's stand-in GPUs: one each for the two ranks (the trainer stays on CPUs)
        const FormSubmission submission = submitThroughForm(window, spec);
        QVERIFY2(submission.error.isEmpty(), qPrintable(submission.error));
        QVERIFY2(submission.result.script.contains(QStringLiteral("\n#SBATCH --gpus-per-task=1\n")),
                 qPrintable(submission.result.script));
        const QString runId = submission.result.runId;
        QVERIFY(!submission.result.jobId.isEmpty());
        QCOMPARE(window.clusterModel()
                     ->index(window.clusterModel()->rowOf(kSandboxHost))
                     .data(ClusterListModel::StateRole)
                     .toInt(),
                 int(ConnectionState::Connected));
        QVERIFY(window.runModel()->run(runId));
        QCOMPARE(window.runView()->runId(), runId); // the new run is selected
        // The status bar says when the agent asks the scheduler next (the interval adapts).
        const auto *nextPoll = window.findChild<QLabel *>(QStringLiteral("nextPoll"));
        QVERIFY(nextPoll);
        const QRegularExpression nextPollShown(
            QStringLiteral("^torchdeck-sandbox: next poll at \\d\\d:\\d\\d:\\d\\d$"));
        QTRY_VERIFY2_WITH_TIMEOUT(nextPollShown.match(nextPoll->text()).hasMatch(), qPrintable(nextPoll->text()),
                                  20000);

        QCOMPARE(waitForRunEnd(window, runId), QStringLiteral("completed"));
        const RunRecord *run = window.runModel()->run(runId);
        QCOMPARE(run->epochsDone, 2);
        QCOMPARE(run->epochsTotal, 2);
        QVERIFY(window.runModel()
                    ->indexOf(runId, RunTreeModel::JobsColumn)
                    .data()
                    .toString()
                    .contains(submission.result.jobId));

        // Steps every 16 of 64: the live charts got them through metricsArrived, or the store on selection.
        QTRY_VERIFY_WITH_TIMEOUT(window.runView()->charts()->drawnPoints(SeriesKind::TrainLoss).size() >= 4, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(window.runView()->charts()->drawnBars(), 2, 10000);
        QVERIFY(!window.agent()->store()->checkpoints(runId).value.isEmpty());
        // The agent keeps the ended job's log on this machine (its one read of the cluster's for it).
        QTRY_VERIFY_WITH_TIMEOUT(readKeptLog(window.agent()->store()->path(), runId, 0).has_value(), 20000);
        // The log is read once its tab is shown (the job ended: once).
        QVERIFY(window.runView()->logPanel()->text().isEmpty());
        window.runView()->tabs()->setCurrentWidget(window.runView()->logPanel());
        QTRY_VERIFY_WITH_TIMEOUT(window.runView()->logPanel()->text().contains(QStringLiteral("stop: done")), 20000);
        QVERIFY(!window.runView()->logPanel()->follower()->isStreaming());
        // No unfinished run: with the window open on the run's log, the login node is asked nothing for 30 s,
        // several of every timer's periods (the window's polls 3 s, the log's retries 2 s, resource samples 10 s).
        const ConnectionLoad before = shown.agent.session()->connectionLoad();
        QTest::qWait(30000);
        const ConnectionLoad after = shown.agent.session()->connectionLoad();
        QCOMPARE(after.commands, before.commands);
        QCOMPARE(after.sftpRequests, before.sftpRequests);
        window.runView()->tabs()->setCurrentIndex(0);

        // "Resume latest": the next attempt of the same run, through the same launcher; one run, two job ids. The
        // run completed its 2 epochs: it is asked to how many it goes on (3), at least one more offered.
        int offeredFrom = 0;
        QTimer::singleShot(0, this, [&offeredFrom] {
            QInputDialog *ask = nullptr;
            if (!QTest::qWaitFor(
                    [&] { return (ask = qobject_cast<QInputDialog *>(QApplication::activeModalWidget())); }, 5000))
                return;
            offeredFrom = ask->intMinimum();
            ask->setIntValue(3);
            ask->accept();
        });
        QSignalSpy resumed(window.runView(), &RunView::resumed);
        window.runView()->resumeFrom(ResumeFrom::latest());
        QCOMPARE(offeredFrom, 3);
        QTRY_VERIFY_WITH_TIMEOUT(!resumed.isEmpty(), 120000);
        const auto again = resumed.constFirst().constFirst().value<LaunchResult>();
        QCOMPARE(again.runId, runId);
        QCOMPARE(again.attempt, 1);
        QTRY_COMPARE_WITH_TIMEOUT(window.agent()->store()->jobs(runId).value.size(), 2, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(window.agent()->store()->jobs(runId).value.constLast().state,
                                  QStringLiteral("completed"), 180000);
        QTRY_COMPARE_WITH_TIMEOUT(window.runModel()->run(runId)->state, QStringLiteral("completed"), 10000);
        QVERIFY(window.runModel()->indexOf(runId, RunTreeModel::JobsColumn).data().toString().contains(again.jobId));
        QTRY_COMPARE_WITH_TIMEOUT(window.runModel()->run(runId)->epochsDone, 3, 10000);
    }

    void plotsAUsersOwnScript()
    {
        // Seed 001's script: mp.spawn, 2 ranks each printing "epoch: E/3, loss = L", sent from the form's
        // code folder; the chart shows 3 epochs.
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        QTemporaryDir project;
        QVERIFY(QFile::copy(qEnvironmentVariable("TORCHDECK_SOURCE_DIR") +
                                QStringLiteral("/tests/data/scripts/spawn_fashion_mnist.py"),
                            project.filePath(QStringLiteral("spawn_fashion_mnist.py"))));
        JobSpec spec;
        spec.name = QStringLiteral("gui-own-script");
        spec.launch = LaunchMethod::Local;
        spec.tasksPerNode = 2;
        spec.gpusPerTask = 1; // its one task gets both ranks' GPUs
        spec.wallTimeSeconds = 600;
        spec.commandKind = CommandKind::Custom;
        spec.codeDirectory = project.path();
        spec.customCommand =
            QStringLiteral("echo \"visible GPUs: $CUDA_VISIBLE_DEVICES\"; /usr/bin/python3 spawn_fashion_mnist.py 2 3");
        const FormSubmission submission = submitThroughForm(window, spec);
        QVERIFY2(submission.error.isEmpty(), qPrintable(submission.error));
        const QString runId = submission.result.runId;
        QVERIFY2(submission.result.script.contains(QStringLiteral("/runs/%1/code").arg(runId)),
                 qPrintable(submission.result.script));
        QCOMPARE(waitForRunEnd(window, runId), QStringLiteral("completed"));
        QTRY_COMPARE_WITH_TIMEOUT(window.runView()->charts()->drawnPoints(SeriesKind::EpochTrainLoss).size(), 3, 10000);
        QCOMPARE(window.runModel()->run(runId)->epochsDone, 3);

        // The pattern editor on the run's actual log, read for it (the Log tab was never shown): both ranks' lines
        // read (two may share a line when they print at once), where the charts kept one of each.
        LogPatternDialog *patterns = window.runView()->openLogPatterns();
        QVERIFY(patterns);
        QTRY_VERIFY_WITH_TIMEOUT(window.runView()->logPanel()->text().contains(QStringLiteral("epoch: 3/3")), 20000);
        QVERIFY2(window.runView()->logPanel()->text().contains(QStringLiteral("visible GPUs: 0,1\n")),
                 qPrintable(window.runView()->logPanel()->text()));
        const int rows = patterns->matches()->topLevelItemCount();
        QVERIFY2(rows >= 3 && rows <= 6, qPrintable(QString::number(rows)));
        patterns->close();
    }

    void submitsTheEditedScript()
    {
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        NewJobDialog *dialog = window.openNewJob();
        dialog->setCluster(kSandboxHost);
        JobSpec spec;
        spec.name = QStringLiteral("edited");
        spec.commandKind = CommandKind::Custom;
        spec.customCommand = QStringLiteral("echo from-the-form");
        spec.wallTimeSeconds = 600;
        dialog->form()->setSpec(spec);
        QVERIFY2(dialog->form()->errors().isEmpty(), qPrintable(formatJobSpecErrors(dialog->form()->errors())));
        ScriptPreview *preview = dialog->form()->scriptPreview();
        QSignalSpy edited(preview, &ScriptPreview::editedChanged);
        dialog->editScript();
        QTRY_VERIFY_WITH_TIMEOUT(preview->isEdited(), 60000);
        QVERIFY(preview->text().contains(QStringLiteral("/runs/"))); // the run directory is filled in
        // The user types over the command (the script's end is the trainer's exit status: nothing runs after
        // it).
        QVERIFY(preview->editor()->find(QStringLiteral("echo from-the-form")));
        QTest::keyClicks(preview->editor(), QStringLiteral("echo edited-by-hand; echo from-the-form"));
        const QString script = preview->text();

        QSignalSpy submitted(dialog, &NewJobDialog::submitted);
        dialog->submit();
        QTRY_VERIFY_WITH_TIMEOUT(!submitted.isEmpty(), 60000);
        const auto result = submitted.constFirst().constFirst().value<LaunchResult>();
        QCOMPARE(result.script, script);
        QVERIFY(!preview->isEdited()); // it named this run's directory: the next job starts from the fields
        QCOMPARE(window.agent()->store()->run(result.runId).value->script, script);
        QVERIFY(result.runDirectory.endsWith(result.runId));
        QVERIFY(script.contains(result.runDirectory)); // rendered for this very run
        QCOMPARE(waitForRunEnd(window, result.runId), QStringLiteral("completed"));
        window.selectRun(result.runId);
        window.runView()->tabs()->setCurrentWidget(window.runView()->logPanel());
        QTRY_VERIFY_WITH_TIMEOUT(window.runView()->logPanel()->text().contains(QStringLiteral("edited-by-hand")),
                                 20000);
        QVERIFY(window.runView()->logPanel()->text().contains(QStringLiteral("from-the-form")));

        // Search: Enter finds the match and stops following so the view stays on it.
        LogPanel *log = window.runView()->logPanel();
        QVERIFY(log->isFollowing());
        auto *search = log->findChild<QLineEdit *>();
        QVERIFY(search);
        search->setText(QStringLiteral("edited-by-hand"));
        QTest::keyClick(search, Qt::Key_Return);
        QVERIFY(!log->isFollowing());
        QCOMPARE(log->findChild<QPlainTextEdit *>()->textCursor().selectedText(), QStringLiteral("edited-by-hand"));
        log->setFollowing(true);
        QVERIFY(log->isFollowing());
    }

private:
    QTemporaryDir m_home{qEnvironmentVariable("TORCHDECK_SANDBOX_DIR") + QStringLiteral("/gui-test.XXXXXX")};
};

QTEST_MAIN(TestGuiSubmit)
#include "tst_guisubmit.moc"
