// An edited profile reaches the session's run tracker: the tracker is replaced by one made with the new
// profile (remote::RunTracker takes its profile once), at once when idle, after its pass when busy.
#include "core/store/runstore.h"
#include "gui/clusterpane.h"
#include "gui/clusterprofiledialog.h"
#include "gui/clustersession.h"
#include "gui/clustersessions.h"
#include "gui/mainwindow.h"
#include "guisandbox.h"

#include <QComboBox>
#include <QPointer>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
const QString kCluster = QStringLiteral("alpha");

ClusterProfile profileWith(SchedulerKind scheduler)
{
    ClusterProfile profile = defaultProfile(kCluster);
    profile.scheduler = scheduler;
    return profile;
}

remote::ConnectionSettings settings()
{
    remote::ConnectionSettings settings;
    settings.host = kCluster;
    return settings;
}

// One pass of the tracker, what it said.
QString pass(remote::RunTracker *tracker)
{
    QSignalSpy refreshed(tracker, &remote::RunTracker::refreshed);
    tracker->refresh();
    if (!refreshed.wait(5000) && refreshed.isEmpty())
        return QStringLiteral("no pass");
    return refreshed.first().first().toString();
}
} // namespace

class TestClusterSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void anEditedProfileReplacesTheTracker();
    void pollsWithTheEditedProfile();

private:
    QTemporaryDir m_dir;
    RunStore m_store;
};

void TestClusterSession::initTestCase()
{
    QVERIFY(m_store.open(m_dir.filePath(QStringLiteral("runs.sqlite"))).ok());
    RunRecord run; // an unfinished run: a pass polls the scheduler for its job
    run.id = QStringLiteral("00000001-aaaa-bbbb-cccc-000000000000");
    run.name = QStringLiteral("running");
    run.cluster = kCluster;
    run.state = QStringLiteral("running");
    QVERIFY(m_store.addRun(run).ok());
    JobRecord job;
    job.runId = run.id;
    job.jobId = QStringLiteral("101");
    job.state = QStringLiteral("running");
    QVERIFY(m_store.saveJob(job).ok());
}

void TestClusterSession::anEditedProfileReplacesTheTracker()
{
    ClusterSession session(profileWith(SchedulerKind::Slurm), settings(), &m_store);
    QSignalSpy replaced(&session, &ClusterSession::trackerReplaced);
    QPointer<remote::RunTracker> first = session.tracker();
    QCOMPARE(pass(first), QStringLiteral("polling 1 job(s): not connected to alpha (disconnected)"));

    session.setProfile(profileWith(SchedulerKind::Slurm)); // unchanged: kept
    QCOMPARE(replaced.size(), 0);

    session.setProfile(profileWith(SchedulerKind::Pbs));
    QCOMPARE(replaced.size(), 1);
    QVERIFY(session.tracker() != first);
    QCOMPARE(replaced.first().first().value<remote::RunTracker *>(), session.tracker());
    QTRY_VERIFY(first.isNull()); // deleted later

    // Busy: the pass ends with the old tracker, the next one starts with a new tracker.
    QPointer<remote::RunTracker> busy = session.tracker();
    QSignalSpy refreshed(busy.data(), &remote::RunTracker::refreshed);
    busy->refresh();
    QVERIFY(busy->isRefreshing());
    session.setProfile(profileWith(SchedulerKind::Slurm));
    QCOMPARE(replaced.size(), 1);
    QVERIFY(refreshed.wait(5000));
    QCOMPARE(session.tracker(), busy.data());
    session.refresh();
    QCOMPARE(replaced.size(), 2);
    QTRY_VERIFY(busy.isNull());
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
    MainWindow window;
    ClusterSession *session = window.sessions()->session(testing::kSandboxHost);
    QVERIFY(session->profile().slurmHistory != SlurmHistory::Accounting);
    session->open();
    QString error;
    QVERIFY2(session->connection()->waitConnected(20000, &error), qPrintable(error));
    QCOMPARE(pass(session->tracker()), QString());

    ClusterProfileDialog *dialog = window.clusterPane()->editProfile(testing::kSandboxHost);
    auto *history = qobject_cast<QComboBox *>(dialog->field(QStringLiteral("slurm_history")));
    QVERIFY(history);
    history->setCurrentIndex(history->findData(int(SlurmHistory::Accounting)));
    QVERIFY2(dialog->save(), qPrintable(dialog->errorText()));
    dialog->accept();
    const QString withSacct = pass(session->tracker());
    QVERIFY2(withSacct.endsWith(QStringLiteral("Slurm accounting storage is disabled")), qPrintable(withSacct));
    QCOMPARE(window.statusBar()->currentMessage(), testing::kSandboxHost + QStringLiteral(": ") + withSacct);
}

QTEST_MAIN(TestClusterSession)
#include "tst_clustersession.moc"
