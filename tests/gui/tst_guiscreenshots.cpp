#include "gui/clustercheckdialog.h"
#include "gui/clusterpane.h"
#include "gui/clusterprofiledialog.h"
#include "gui/colorscheme.h"
#include "gui/runcharts.h"
#include "gui/runchartspanel.h"
#include "gui/runview.h"
#include "guisandbox.h"

#include <QChart>
#include <QDir>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

// Run under Xvfb by ctest (gui.screenshots): the window on a real run of the sandbox (light and dark), its
// log, the cluster profile dialog, the Check cluster checklist and the new-job form,
// saved as PNGs into $TORCHDECK_SCREENSHOT_DIR (build/dev/screenshots; copy them to docs/screenshots to
// update the README's pictures).
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
        MainWindow window;
        window.resize(1280, 760);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        JobSpec spec = smallTrainerJob(6);
        spec.name = QStringLiteral("fashion-ae");
        spec.trainerArgs.append({QStringLiteral("--checkpoint-every"), QStringLiteral("epoch")});
        const FormSubmission submission = submitThroughForm(window, spec);
        QVERIFY2(submission.error.isEmpty(), qPrintable(submission.error));
        QCOMPARE(waitForRunEnd(window, submission.result.runId), QStringLiteral("completed"));
        // A second run with another learning rate, drawn over the first ("Compare with...").
        JobSpec other = smallTrainerJob(6);
        other.name = QStringLiteral("fashion-ae-lr3e-4");
        other.trainerArgs[other.trainerArgs.indexOf(QStringLiteral("--lr")) + 1] = QStringLiteral("0.0003");
        const FormSubmission second = submitThroughForm(window, other);
        QVERIFY2(second.error.isEmpty(), qPrintable(second.error));
        QCOMPARE(waitForRunEnd(window, second.result.runId), QStringLiteral("completed"));
        window.selectRun(submission.result.runId);
        window.runView()->chartsPanel()->compareWith({second.result.runId});
        QCOMPARE(window.runView()->charts()->comparedRuns(), 1);
        window.runView()->charts()->redraw();
        QTest::qWait(300);
        save(window.grab(), QStringLiteral("run-view.png"));
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
