#include "gui/runactions.h"
#include "gui/runcharts.h"
#include "gui/runview.h"
#include "guisandbox.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace torchdeck;
using namespace torchdeck::testing;

// Run actions from the window against the sandbox's Slurm: two runs selected in the tree are cancelled with
// one confirmation, a running job is requeued by the scheduler, and an ended run is offered a resume.
class TestGuiRunActions : public QObject {
    Q_OBJECT
private:
    static JobSpec sleeper(const QString &name)
    {
        JobSpec spec;
        spec.name = name;
        spec.commandKind = CommandKind::Custom;
        spec.customCommand = QStringLiteral("sleep 300");
        spec.wallTimeSeconds = 600;
        return spec;
    }
    // Answers the message box the action opened, and says which one it was.
    static QString answer(QMessageBox::StandardButton button)
    {
        QMessageBox *box = nullptr;
        if (!QTest::qWaitFor([&] { return (box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())); },
                             5000))
            return {};
        const QString name = box->objectName();
        box->button(button)->click();
        return name;
    }
    static QString jobState(MainWindow &window, const QString &runId)
    {
        const auto jobs = window.agent()->store()->jobs(runId).value;
        return jobs.isEmpty() ? QString() : jobs.constLast().state;
    }

private slots:
    void initTestCase() { initSandboxTest(m_home); }

    void cancelsSelectedRunsAtOnceAndRequeues()
    {
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        const FormSubmission first = submitThroughForm(window, sleeper(QStringLiteral("sleeper-1")));
        QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
        const FormSubmission second = submitThroughForm(window, sleeper(QStringLiteral("sleeper-2")));
        QVERIFY2(second.error.isEmpty(), qPrintable(second.error));
        window.agent()->setPollInterval(500);
        QTRY_COMPARE_WITH_TIMEOUT(jobState(window, first.result.runId), QStringLiteral("running"), 60000);

        // What the shown run's job uses: the agent samples it on its node; the charts and the line under the
        // header show it (the sleeper's resident memory, its CPU near 0%).
        window.selectRun(first.result.runId);
        QTRY_VERIFY_WITH_TIMEOUT(window.runView()->charts()->drawnResources().contains(QStringLiteral("memory GiB")),
                                 30000);
        QVERIFY(window.runView()->charts()->drawnResources().contains(QStringLiteral("CPU %")));
        const auto *uses = window.runView()->findChild<QLabel *>(QStringLiteral("resourceUse"));
        QVERIFY(uses);
        QTRY_VERIFY(uses->isVisible());
        QVERIFY2(uses->text().contains(QStringLiteral("RSS")) && uses->text().contains(QStringLiteral("1 task")),
                 qPrintable(uses->text()));
        // Its stacks, from the run view: the sleeper's process under its node's header.
        auto *stacks = window.runView()->findChild<QAction *>(QStringLiteral("stackDump"));
        QVERIFY(stacks && stacks->isEnabled());
        stacks->trigger();
        QDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.runView()->findChild<QDialog *>(QStringLiteral("stackDumpDialog"))));
        const auto *text = dialog->findChild<QPlainTextEdit *>();
        QTRY_VERIFY2_WITH_TIMEOUT(text->toPlainText().contains(QStringLiteral("(sleep) ==")),
                                  qPrintable(text->toPlainText()), 60000);
        QVERIFY2(text->toPlainText().contains(QStringLiteral("== node1 pid ")), qPrintable(text->toPlainText()));
        dialog->close();

        // Requeue: the scheduler takes the running job back and queues it again under the same id.
        QSignalSpy done(window.runView()->actions(), &RunActions::actionDone);
        window.selectRun(first.result.runId);
        window.runView()->requeueRun();
        QCOMPARE(answer(QMessageBox::Yes), QStringLiteral("confirmRequeue"));
        QVERIFY(done.wait(30000));
        QCOMPARE(done.constFirst().at(0).value<SchedulerAction>(), SchedulerAction::Requeue);
        QCOMPARE(done.constFirst().at(2).toStringList(), QStringList{first.result.runId});

        // Both runs selected in the tree, one question, both cancelled.
        QTreeView *tree = window.runTree();
        tree->selectionModel()->clearSelection();
        for (const QString &runId : {first.result.runId, second.result.runId}) {
            const QModelIndex index =
                tree->model()->index(window.runModel()->indexOf(runId).row(), 0, tree->model()->index(0, 0));
            QCOMPARE(index.data(RunTreeModel::RunIdRole).toString(), runId);
            tree->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        QCOMPARE(window.selectedRuns().size(), 2);
        done.clear();
        window.cancelSelectedRuns();
        QCOMPARE(answer(QMessageBox::Yes), QStringLiteral("confirmCancel"));
        QVERIFY(done.wait(30000));
        QCOMPARE(done.size(), 1); // one scheduler call for the cluster
        QCOMPARE(done.constFirst().at(2).toStringList().size(), 2);
        QCOMPARE(waitForRunEnd(window, first.result.runId, 60000), QStringLiteral("cancelled"));
        QCOMPARE(waitForRunEnd(window, second.result.runId, 60000), QStringLiteral("cancelled"));

        // An ended run cannot be requeued: Requeue offers a resume instead (declined here).
        QSignalSpy offered(window.runView()->actions(), &RunActions::resumeOffered);
        window.runView()->actions()->requeue(first.result.runId);
        QCOMPARE(answer(QMessageBox::No), QStringLiteral("confirmResume"));
        QVERIFY(offered.isEmpty());
    }

private:
    QTemporaryDir m_home{qEnvironmentVariable("TORCHDECK_SANDBOX_DIR") + QStringLiteral("/gui-test.XXXXXX")};
};

QTEST_MAIN(TestGuiRunActions)
#include "tst_guirunactions.moc"
