#include "core/runs/runfiles.h"
#include "core/runs/startestimate.h"
#include "gui/checkpointlistmodel.h"
#include "gui/checkpointpanel.h"
#include "gui/restartfields.h"
#include "gui/runcharts.h"
#include "gui/runchartview.h"
#include "gui/runfilespanel.h"
#include "gui/runview.h"
#include "guisandbox.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

using namespace torchdeck;
using namespace torchdeck::testing;

namespace {
const QString kSecondHost = QStringLiteral("torchdeck-b");

// scripts/sandbox with these arguments; its output when it failed.
// A command's trimmed stdout; empty when it failed.
QString output(const QString &program, const QStringList &args)
{
    QProcess process;
    process.start(program, args);
    if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return {};
    return QString::fromUtf8(process.readAllStandardOutput().trimmed());
}

QString sandbox(const QStringList &args)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(qEnvironmentVariable("TORCHDECK_SOURCE_DIR") + QStringLiteral("/scripts/sandbox"), args);
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return QStringLiteral("scripts/sandbox %1: %2").arg(args.join(u' '), QString::fromUtf8(process.readAll()));
    return {};
}
} // namespace

// Issue 43 from the window: "Continue on…" takes an ended run to a second sandbox cluster (torchdeck-b, its own
// sshd and Slurm beside the suite's), from its latest checkpoint; one run, its attempts on both clusters.
class TestGuiContinue : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        initSandboxTest(m_home, TrainerUse::Prebuilt);
        // A copy of the ssh config gets the second cluster's Include: the suite's stays as it was.
        const QString config = m_home.filePath(QStringLiteral("ssh-config"));
        QVERIFY(QFile::copy(qEnvironmentVariable("TORCHDECK_SSH_CONFIG"), config));
        qputenv("TORCHDECK_SSH_CONFIG", QFile::encodeName(config));
        const QString started = sandbox({QStringLiteral("--dir"), m_home.filePath(QStringLiteral("b")),
                                         QStringLiteral("--name"), kSecondHost, QStringLiteral("start")});
        QVERIFY2(started.isEmpty(), qPrintable(started));
        m_started = true;
        ProfileStore profiles;
        QString error;
        QVERIFY2(profiles.load(&error), qPrintable(error));
        ClusterProfile profile = profiles.profile(kSecondHost);
        profile.workDirectory = m_home.filePath(QStringLiteral("work-b"));
        profile.trainerBinary = qEnvironmentVariable("TORCHDECK_TRAIN_BINARY");
        profile.minPollSeconds = 1;
        profile.slurmHistory = SlurmHistory::CompletionFile; // no accounting database
        profiles.put(profile);
        QVERIFY2(profiles.save(&error), qPrintable(error));
    }

    void cleanupTestCase()
    {
        if (m_started)
            QVERIFY(sandbox({QStringLiteral("--dir"), m_home.filePath(QStringLiteral("b")), QStringLiteral("stop")})
                        .isEmpty());
    }

    void continuesAnEndedRunOnAnotherCluster()
    {
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        // Stopped after its first epoch as at a wall time (checkpoint, exit 75), and not restarted here.
        JobSpec spec = smallTrainerJob(2);
        spec.maxRestarts = 0;
        spec.trainerArgs << QStringLiteral("--signal-at-step") << QStringLiteral("32");
        const FormSubmission submission = submitThroughForm(window, spec);
        QVERIFY2(submission.error.isEmpty(), qPrintable(submission.error));
        const QString runId = submission.result.runId;
        QVERIFY(waitForRunEnd(window, runId) != QStringLiteral("completed"));
        QCOMPARE(window.runModel()->run(runId)->epochsDone, 1);
        QCOMPARE(window.runView()->runId(), runId);

        // More > Continue on…: the other cluster of the ssh config is offered, and chosen.
        auto *action = window.runView()->findChild<QAction *>(QStringLiteral("continueOn"));
        QVERIFY(action);
        QTRY_VERIFY_WITH_TIMEOUT(action->isEnabled(), 10000);
        QStringList offered;
        QTimer::singleShot(0, this, [&offered] {
            QInputDialog *chooser = nullptr;
            if (!QTest::qWaitFor(
                    [&] { return (chooser = qobject_cast<QInputDialog *>(QApplication::activeModalWidget())); }, 5000))
                return;
            offered = chooser->comboBoxItems();
            chooser->setTextValue(kSecondHost);
            chooser->accept();
        });
        QSignalSpy resumed(window.runView(), &RunView::resumed);
        action->trigger();
        QVERIFY2(offered.contains(kSecondHost), qPrintable(offered.join(u',')));
        QVERIFY(!offered.contains(kSandboxHost));
        QTRY_VERIFY_WITH_TIMEOUT(!resumed.isEmpty(), 120000);
        const auto again = resumed.constFirst().constFirst().value<LaunchResult>();
        QCOMPARE(again.runId, runId);
        QCOMPARE(again.attempt, 1);

        QCOMPARE(waitForRunEnd(window, runId), QStringLiteral("completed"));
        const auto jobs = window.agent()->store()->jobs(runId).value;
        QCOMPARE(jobs.size(), 2);
        QCOMPARE(jobs.at(0).cluster, kSandboxHost);
        QCOMPARE(jobs.at(1).cluster, kSecondHost);
        QCOMPARE(window.runModel()->run(runId)->cluster, kSecondHost);
        QCOMPARE(window.runModel()->run(runId)->epochsDone, 2);
        // Its checkpoints lie on both clusters, each checked where it lies: the first attempt's newest on
        // torchdeck-sandbox is that cluster's latest, none "gone" for not being on torchdeck-b.
        CheckpointPanel *panel = window.runView()->checkpointPanel();
        const RunRecord ended = *window.runModel()->run(runId);
        panel->showRun(nullptr, {}, nullptr);
        QSignalSpy checked(panel, &CheckpointPanel::presenceChecked);
        panel->showRun(&ended, jobs, nullptr); // listed anew: each cluster asked
        QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 2, 30000);
        const auto mark = [panel](int row) {
            return panel->model()->index(row, CheckpointListModel::MarkColumn).data().toString();
        };
        const QList<CheckpointEntry> entries = panel->model()->entries();
        const auto onA = std::count_if(entries.cbegin(), entries.cend(),
                                       [](const CheckpointEntry &e) { return e.cluster == kSandboxHost; });
        QVERIFY(onA >= 1 && onA < entries.size()); // the first attempt's (an epoch's, the signal's), then the second's
        for (int row = 0; row < entries.size(); ++row) {
            const bool last = row == onA - 1 || row == entries.size() - 1;
            QCOMPARE(entries.at(row).cluster, row < onA ? kSandboxHost : kSecondHost);
            QCOMPARE(mark(row).startsWith(QStringLiteral("latest")), last);
            QCOMPARE(mark(row).endsWith(QStringLiteral("on torchdeck-sandbox")), row < onA);
            QVERIFY2(!mark(row).contains(QStringLiteral("gone")), qPrintable(mark(row)));
        }

        // One curve over both clusters; where it went on is marked on it.
        QTRY_COMPARE_WITH_TIMEOUT(window.runView()->charts()->drawnBars(), 2, 10000);
        bool marked = false;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const RunChartView *view : window.runView()->charts()->findChildren<RunChartView *>())
                    for (const ChartMarker &marker : view->markers())
                        marked = marked || marker.label.endsWith(QStringLiteral("; on torchdeck-b from here"));
                return marked;
            }(),
            10000);

        // The Files tab offers both clusters: torchdeck-sandbox's holds what the first attempt wrote.
        auto *files = window.runView()->findChild<RunFilesPanel *>();
        QVERIFY(files);
        QComboBox *on = files->clusterChoice();
        QCOMPARE(on->count(), 2);
        QCOMPARE(on->currentText(), kSecondHost);
        QVERIFY(!on->isHidden());
        QSignalSpy listed(files, &RunFilesPanel::listed);
        on->setCurrentIndex(on->findText(kSandboxHost));
        emit on->activated(on->currentIndex());
        QTRY_VERIFY_WITH_TIMEOUT(!listed.isEmpty(), 30000);
        QCOMPARE(QFileInfo(files->directory()).canonicalFilePath(),
                 QFileInfo(runDirectoryOn(kSandboxHost, runId, jobs, {})).canonicalFilePath());
        QTreeWidget *list = files->list();
        QVERIFY(list->topLevelItemCount() > 0);
        bool checkpointListed = false;
        for (int row = 0; row < list->topLevelItemCount(); ++row) {
            const QTreeWidgetItem *item = list->topLevelItem(row);
            QVERIFY2(item->text(3).isEmpty() || item->text(3) == u"0", qPrintable(item->text(0)));
            checkpointListed = checkpointListed || item->text(0).startsWith(QStringLiteral("checkpoints/checkpoint-"));
        }
        QVERIFY(checkpointListed);

        // "Delete run…" says the directories on both clusters; with them ticked, both go.
        const QString onSandbox = runDirectoryOn(kSandboxHost, runId, jobs, {});
        const QString onSecond = runDirectoryOn(kSecondHost, runId, jobs, {});
        QVERIFY(QFileInfo(onSandbox).isDir() && QFileInfo(onSecond).isDir() && onSandbox != onSecond);
        QString offeredText;
        QTimer answer; // the box comes after the dry run's reply, in its own event loop
        answer.setInterval(50);
        connect(&answer, &QTimer::timeout, this, [&answer, &offeredText] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box)
                return;
            answer.stop();
            offeredText = box->checkBox()->text();
            box->checkBox()->setChecked(true);
            box->button(QMessageBox::Yes)->click();
        });
        answer.start();
        QSignalSpy deleted(window.runView(), &RunView::runDeleted);
        window.runView()->deleteRun();
        QTRY_COMPARE_WITH_TIMEOUT(deleted.size(), 1, 60000);
        QVERIFY2(offeredText.startsWith(QStringLiteral("Also remove its directories on torchdeck-b (")) &&
                     offeredText.contains(QStringLiteral("; on torchdeck-sandbox (")) &&
                     offeredText.contains(onSandbox) && offeredText.contains(onSecond),
                 qPrintable(offeredText));
        QVERIFY(!QFileInfo::exists(onSandbox));
        QVERIFY(!QFileInfo::exists(onSecond));
        QVERIFY(!window.agent()->store()->run(runId).value);
    }

    void offersARunToAnyOfTwoClusters()
    {
        ShownWindow shown;
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        // A long job holds the suite's cluster: a job there would start in about an hour.
        const QString blocker =
            output(QStringLiteral("sbatch"),
                   {QStringLiteral("--parsable"), QStringLiteral("--exclusive"), QStringLiteral("-N1"),
                    QStringLiteral("--time=60"), QStringLiteral("-o/dev/null"), QStringLiteral("--wrap=sleep 3600")});
        QVERIFY(!blocker.isEmpty());
        const auto cancelBlocker = qScopeGuard([&blocker] { output(QStringLiteral("scancel"), {blocker}); });
        QTRY_COMPARE_WITH_TIMEOUT(output(QStringLiteral("squeue"),
                                         {QStringLiteral("-h"), QStringLiteral("-o%T"), QStringLiteral("-j"), blocker}),
                                  QStringLiteral("RUNNING"), 20000);

        // The form's cluster and "Any of…" torchdeck-b: the run goes where it starts first.
        NewJobDialog *dialog = window.openNewJob();
        dialog->setCluster(kSandboxHost);
        dialog->setAlsoOn({kSecondHost, kSandboxHost});
        QCOMPARE(dialog->alsoOn(), QStringList{kSecondHost}); // the form's own cluster is asked anyway
        dialog->form()->setSpec(smallTrainerJob(1));
        // Offered to two clusters, a run may move a restart that waits: the field is there only then.
        auto *moveAfter = dialog->form()->findChild<QSpinBox *>(QStringLiteral("moveAfter"));
        QVERIFY(moveAfter && moveAfter->isEnabled());
        moveAfter->setValue(30);
        QVERIFY2(dialog->form()->restartFields()->mechanismText().contains(QStringLiteral("--move-after")),
                 qPrintable(dialog->form()->restartFields()->mechanismText()));
        QSignalSpy submitted(dialog, &NewJobDialog::submitted);
        dialog->submit();
        QTRY_VERIFY2_WITH_TIMEOUT(!submitted.isEmpty(), qPrintable(dialog->panel()->outputText()), 120000);
        const auto result = submitted.constFirst().constFirst().value<LaunchResult>();
        const QString said = dialog->panel()->outputText();
        QVERIFY2(said.contains(QStringLiteral("torchdeck-b         now   (chosen)")), qPrintable(said));
        QVERIFY2(
            said.contains(QStringLiteral("chose torchdeck-b, where it would start soonest: torchdeck-sandbox in ")),
            qPrintable(said));
        const auto run = window.agent()->store()->run(result.runId);
        QVERIFY(run.ok() && run.value);
        QCOMPARE(run.value->cluster, kSecondHost);
        const Placement placed = placementFromJson(run.value->placement);
        QCOMPARE(placed.chosen, kSecondHost);
        QCOMPARE(placed.estimates.size(), 2);
        QCOMPARE(placed.estimates.at(0).cluster, kSandboxHost);
        QVERIFY(placed.estimates.at(0).start > placed.estimates.at(1).start.addSecs(1800));
        const JobSpec::FromJson spec = run.value->spec();
        QVERIFY(spec.ok());
        QCOMPARE(spec.spec.moveAfterSeconds, 30 * 60);
        QVERIFY(!spec.spec.requeue); // the agent's restart, which can move
        dialog->setAlsoOn({});
        QVERIFY(!moveAfter->isEnabled());
        QCOMPARE(waitForRunEnd(window, result.runId), QStringLiteral("completed"));
    }

private:
    QTemporaryDir m_home{qEnvironmentVariable("TORCHDECK_SANDBOX_DIR") + QStringLiteral("/gui-test.XXXXXX")};
    bool m_started = false;
};

QTEST_MAIN(TestGuiContinue)
#include "tst_guicontinue.moc"
