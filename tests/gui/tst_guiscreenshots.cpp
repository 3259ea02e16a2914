#include "client/sessionoperation.h"
#include "gui/clustercheckdialog.h"
#include "gui/clusterpane.h"
#include "gui/clusterprofiledialog.h"
#include "gui/colorscheme.h"
#include "gui/runcharts.h"
#include "gui/runchartspanel.h"
#include "gui/runchartview.h"
#include "gui/runsummarytable.h"
#include "gui/runview.h"
#include "guisandbox.h"
#include "session/clustersession.h"

#include <QChart>
#include <QDir>
#include <QHeaderView>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace torchdeck;
using namespace torchdeck::testing;

// Run under Xvfb by ctest (gui.screenshots), at 1366x768: the window on a real run of the sandbox that branched from
// a checkpoint (light and dark) with what its job used, three runs overlaid, the log, the cluster profile dialog, the
// Check cluster checklist and the new-job form, saved as PNGs into $TORCHDECK_SCREENSHOT_DIR (build/dev/screenshots;
// copy them to docs/screenshots to update the README's pictures).
class TestGuiScreenshots : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear(); // window and dialog sizes as a first start has them
        QVERIFY2(sandboxRunning(), "the sandbox fixture is not running");
        QVERIFY2(!qEnvironmentVariableIsEmpty("TORCHDECK_TRAIN_BINARY"), "TORCHDECK_TRAIN_BINARY is not set");
        m_out = qEnvironmentVariable("TORCHDECK_SCREENSHOT_DIR");
        QVERIFY2(!m_out.isEmpty() && QDir().mkpath(m_out), "TORCHDECK_SCREENSHOT_DIR is not a usable folder");
        QVERIFY(m_home.isValid());
        const QString problem = prepareSandboxHome(m_home.path());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void runViewAndNewJobForm()
    {
        TestAgent agent; // the window attaches to it
        QVERIFY2(agent.started, qPrintable(agent.error));
        MainWindow window;
        window.resize(1366, 768); // a laptop's screen: the run view with resources and an overlay must fit it
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        JobSpec spec = smallTrainerJob(6);
        spec.name = QStringLiteral("fashion-ae");
        spec.trainerArgs.append({QStringLiteral("--checkpoint-every"), QStringLiteral("epoch")});
        // A pause in epoch 2 long enough for the resource charts' samples (every 10 s while the run is shown).
        spec.trainerArgs.append({QStringLiteral("--sleep-in-step"), QStringLiteral("40:0:21")});
        const FormSubmission submission = submitThroughForm(window, spec);
        QVERIFY2(submission.error.isEmpty(), qPrintable(submission.error));
        QCOMPARE(waitForRunEnd(window, submission.result.runId), QStringLiteral("completed"));
        // The run branched: resumed from its epoch-4 checkpoint (step 128 of 32 a epoch; the trainer keeps the
        // newest 3), so the chart shows the boundary ("job N: branched") and the first job's discarded steps
        // dimmed, smoothed (0.6).
        SessionOperation *branch = window.agent()->resume(kSandboxHost, submission.result.runId,
                                                          ResumeFrom::checkpoint(QStringLiteral("128")), {});
        QSignalSpy branched(branch, &SessionOperation::finished);
        QSignalSpy branchFailed(branch, &SessionOperation::failed);
        QVERIFY(QTest::qWaitFor([&] { return !branched.isEmpty() || !branchFailed.isEmpty(); }, 180000));
        QVERIFY2(branchFailed.isEmpty(), qPrintable(branchFailed.value(0).value(0).toString()));
        QCOMPARE(waitForRunEnd(window, submission.result.runId), QStringLiteral("completed"));
        window.selectRun(submission.result.runId);
        window.runView()->charts()->redraw();
        QTRY_COMPARE(window.runView()->charts()->view(SeriesKind::TrainLoss)->markers().size(), 1);
        QVERIFY(!window.runView()->charts()->drawnDiscarded().isEmpty());
        QVERIFY(!window.runView()->charts()->drawnSmoothed(SeriesKind::TrainLoss).isEmpty());
        QVERIFY(window.runView()->charts()->drawnResource(QStringLiteral("CPU %")).size() >= 2);
        QTest::qWait(300);
        save(window.grab(), QStringLiteral("run-view.png"));

        // Two more runs with other learning rates; the three selected in the list are overlaid, their final and
        // best values beside the charts.
        QStringList overlaid{submission.result.runId};
        for (const char *lr : {"0.0003", "0.003"}) {
            JobSpec other = smallTrainerJob(6);
            other.name = QStringLiteral("fashion-ae-lr") + QString::fromLatin1(lr);
            other.trainerArgs[other.trainerArgs.indexOf(QStringLiteral("--lr")) + 1] = QString::fromLatin1(lr);
            const FormSubmission next = submitThroughForm(window, other);
            QVERIFY2(next.error.isEmpty(), qPrintable(next.error));
            QCOMPARE(waitForRunEnd(window, next.result.runId), QStringLiteral("completed"));
            overlaid.append(next.result.runId);
        }
        window.selectRun(submission.result.runId);
        QTreeView *tree = window.runTree();
        for (const QString &runId : overlaid.mid(1)) {
            const QModelIndex row = window.runModel()->indexOf(runId);
            const QModelIndex shown = qobject_cast<QSortFilterProxyModel *>(tree->model())->mapFromSource(row);
            tree->selectionModel()->select(shown, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        QCOMPARE(window.runView()->charts()->comparedRuns(), 2);
        RunSummaryTable *legend = window.runView()->chartsPanel()->summaryTable();
        QCOMPARE(legend->rowCount(), 3); // a row per run, named whole
        for (int row = 0; row < legend->rowCount(); ++row)
            QVERIFY(legend->fontMetrics().horizontalAdvance(legend->item(row, 0)->text()) + legend->iconSize().width() <
                    legend->columnWidth(0));
        QVERIFY(legend->horizontalHeader()->length() <= legend->viewport()->width()); // no header cut
        window.runView()->charts()->redraw();
        QTest::qWait(300);
        save(window.grab(), QStringLiteral("run-overlay.png"));
        tree->selectionModel()->clearSelection();
        window.selectRun(submission.result.runId);
        window.runView()->tabs()->setCurrentIndex(1); // the log
        QTest::qWait(2500);
        save(window.grab(), QStringLiteral("run-log.png"));

        window.runView()->tabs()->setCurrentIndex(0);
        applyColorScheme(ColorScheme::Dark);
        QTRY_COMPARE(window.runView()->charts()->charts().constFirst()->theme(), QChart::ChartThemeDark);
        QTest::qWait(300);
        save(window.grab(), QStringLiteral("run-view-dark.png"));
        applyColorScheme(ColorScheme::System);
        QTest::qWait(300);

        ClusterPane *pane = window.clusterPane();
        pane->selectCluster(kSandboxHost);
        ClusterProfileDialog *profile = pane->editProfile(kSandboxHost);
        QVERIFY(QTest::qWaitForWindowExposed(profile));
        QTest::qWait(200);
        save(profile->grab(), QStringLiteral("cluster-profile.png"));
        profile->reject();

        ClusterCheckDialog *check = pane->checkCluster(kSandboxHost);
        QSignalSpy checked(check, &ClusterCheckDialog::checked);
        QVERIFY(checked.wait(90000));
        QVERIFY(QTest::qWaitForWindowExposed(check));
        QTest::qWait(200);
        save(check->grab(), QStringLiteral("check-cluster.png"));
        check->close();

        NewJobDialog *dialog = window.openNewJob();
        dialog->setCluster(kSandboxHost);
        JobSpec example = smallTrainerJob(20);
        example.name = QStringLiteral("resnet18-fmnist");
        example.nodes = 2;
        example.modules = {QStringLiteral("cmake")};
        example.trainerArgs[1] = QStringLiteral("resnet18");
        dialog->form()->setSpec(example);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QTest::qWait(300);
        save(dialog->grab(), QStringLiteral("new-job-form.png"));
        dialog->close();
    }

private:
    void save(const QPixmap &pixmap, const QString &name)
    {
        QVERIFY(!pixmap.isNull());
        QVERIFY2(pixmap.save(m_out + u'/' + name), qPrintable(name));
        qInfo("saved %s", qPrintable(QString(m_out + u'/' + name)));
    }

    QString m_out;
    QTemporaryDir m_home{qEnvironmentVariable("TORCHDECK_SANDBOX_DIR") + QStringLiteral("/gui-shots.XXXXXX")};
};

QTEST_MAIN(TestGuiScreenshots)
#include "tst_guiscreenshots.moc"
