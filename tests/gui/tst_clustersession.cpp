// An edited profile reaches the agent's run tracker: the window saves it and tells the agent, whose session
// replaces its tracker (remote::RunTracker takes its profile once); the window notices nothing but the answers.
#include "core/store/runstore.h"
#include "gui/clusterpane.h"
#include "gui/clusterprofiledialog.h"
#include "gui/mainwindow.h"
#include "guisandbox.h"
#include "session/clustersession.h"
#include "session/clustersessions.h"

#include <QComboBox>
#include <QPointer>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using torchdeck::testing::TestAgent;

namespace {
// One pass of the session, what it said.
QString pass(ClusterSession *session)
{
    QSignalSpy refreshed(session, &ClusterSession::refreshed);
    if (session->isRefreshing() && !refreshed.wait(10000))
        return QStringLiteral("no pass");
    refreshed.clear();
    session->refresh();
    if (!refreshed.wait(10000) && refreshed.isEmpty())
        return QStringLiteral("no pass");
    return refreshed.first().first().toString();
}
} // namespace

class TestClusterSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void pollsWithTheEditedProfile();

private:
    QTemporaryDir m_dir;
};

void TestClusterSession::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

// Against the sandbox's Slurm, through the window: no accounting there, so a job that left the queue is
// found through the sandbox profile's slurm_history (completion-file); edited to "accounting" in the profile
// dialog, the next pass asks sacct and the window shows its refusal (the window listens to the new tracker).
void TestClusterSession::pollsWithTheEditedProfile()
{
    if (!testing::sandboxRunning())
        QSKIP("the sandbox is not running (ctest gui.clustersession_sandbox starts it)");
    const QString home = m_dir.filePath(QStringLiteral("home"));
    const QString problem = testing::prepareSandboxHome(home);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    {
        RunStore store;
        QVERIFY(store.open(home + QStringLiteral("/data/runs.sqlite")).ok());
        RunRecord run;
        run.id = QStringLiteral("00000002-aaaa-bbbb-cccc-000000000000");
        run.cluster = testing::kSandboxHost;
        run.state = QStringLiteral("running");
        QVERIFY(store.addRun(run).ok());
        JobRecord job; // long gone from the queue
        job.runId = run.id;
        job.jobId = QStringLiteral("999999");
        job.state = QStringLiteral("running");
        QVERIFY(store.saveJob(job).ok());
    }
    TestAgent agent; // the window attaches to it
    QVERIFY2(agent.started, qPrintable(agent.error));
    MainWindow window;
    window.connectCluster(testing::kSandboxHost); // through the agent, as a double click does
    QTRY_VERIFY_WITH_TIMEOUT(agent.session() && agent.session()->isConnected(), 20000);
    ClusterSession *session = agent.session();
    QVERIFY(session->profile().slurmHistory != SlurmHistory::Accounting);
    QCOMPARE(pass(session), QString());

    ClusterProfileDialog *dialog = window.clusterPane()->editProfile(testing::kSandboxHost);
    auto *history = qobject_cast<QComboBox *>(dialog->field(QStringLiteral("slurm_history")));
    QVERIFY(history);
    history->setCurrentIndex(history->findData(int(SlurmHistory::Accounting)));
    QVERIFY2(dialog->save(), qPrintable(dialog->errorText()));
    dialog->accept();
    // The window tells the agent, whose session takes the saved profile.
    QTRY_COMPARE_WITH_TIMEOUT(session->profile().slurmHistory, SlurmHistory::Accounting, 10000);
    const QString withSacct = pass(session);
    QVERIFY2(withSacct.endsWith(QStringLiteral("Slurm accounting storage is disabled")), qPrintable(withSacct));
    QTRY_COMPARE_WITH_TIMEOUT(window.statusBar()->currentMessage(),
                              testing::kSandboxHost + QStringLiteral(": ") + withSacct, 10000);
}

QTEST_MAIN(TestClusterSession)
#include "tst_clustersession.moc"
