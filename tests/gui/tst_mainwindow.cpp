#include "client/agentclient.h"
#include "core/agent/agentpaths.h"
#include "core/agent/agentprotocol.h"
#include "core/profiles/profilestore.h"
#include "gui/clusterlistmodel.h"
#include "gui/clusterpane.h"
#include "gui/jobform.h"
#include "gui/mainwindow.h"
#include "gui/newjobdialog.h"
#include "gui/runcharts.h"
#include "gui/runchartspanel.h"
#include "gui/runtreemodel.h"
#include "gui/runview.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace torchdeck;

// The window offline: clusters from the ssh config and profiles, runs from the store, the filter, the
// shortcuts, and the window state kept in QSettings.
class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_home.isValid());
        QFile config(m_home.filePath(QStringLiteral("ssh_config")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("Host alpha\n  HostName alpha.example.org\nHost beta *.wild\n  User me\n");
        config.close();
        qputenv("TORCHDECK_SSH_CONFIG", QFile::encodeName(config.fileName()));
        qputenv("TORCHDECK_DATA_DIR", QFile::encodeName(m_home.path()));
        qputenv("TORCHDECK_CONFIG_DIR", QFile::encodeName(m_home.path()));
        QSettings().clear();

        RunStore store;
        QVERIFY(store.open(m_home.filePath(QStringLiteral("runs.sqlite"))).ok());
        for (int i = 0; i < 2; ++i) {
            RunRecord run;
            run.id = QStringLiteral("0000000%1-aaaa-bbbb-cccc-000000000000").arg(i);
            run.name = i == 0 ? QStringLiteral("older") : QStringLiteral("newer");
            run.cluster = QStringLiteral("alpha");
            run.state = i == 0 ? QStringLiteral("completed") : QStringLiteral("running");
            run.created = QDateTime::currentDateTimeUtc().addSecs(-600 + i * 60);
            QVERIFY(store.addRun(run).ok());
            JobRecord job;
            job.runId = run.id;
            job.jobId = QString::number(100 + i);
            job.state = run.state;
            QVERIFY(store.saveJob(job).ok());
        }
    }

    void showsClustersAndRuns()
    {
        MainWindow window;
        QAbstractItemModelTester tester(window.runModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(window.clusterModel()->names(), (QStringList{QStringLiteral("alpha"), QStringLiteral("beta")}));
        QCOMPARE(window.runModel()->rowCount(), 1); // one cluster
        const QModelIndex alpha = window.runModel()->clusterIndex(QStringLiteral("alpha"));
        QCOMPARE(window.runModel()->rowCount(alpha), 2);
        QCOMPARE(window.runModel()->index(0, RunTreeModel::NameColumn, alpha).data().toString(),
                 QStringLiteral("newer"));
        QCOMPARE(window.runModel()->index(0, RunTreeModel::JobsColumn, alpha).data().toString(), QStringLiteral("101"));
        QCOMPARE(window.runModel()->index(0, RunTreeModel::NameColumn).data().toString(),
                 QStringLiteral("alpha: 2 run(s), 1 active"));
        window.reloadRuns(); // a reset the tester checks
        window.selectRun(QStringLiteral("00000000-aaaa-bbbb-cccc-000000000000"));
        QCOMPARE(window.runView()->runId(), QStringLiteral("00000000-aaaa-bbbb-cccc-000000000000"));
    }

    void selectedRunsAreOverlaid()
    {
        MainWindow window;
        const QString older = QStringLiteral("00000000-aaaa-bbbb-cccc-000000000000");
        const QString newer = QStringLiteral("00000001-aaaa-bbbb-cccc-000000000000");
        window.selectRun(newer);
        QVERIFY(window.runView()->chartsPanel()->comparedRuns().isEmpty());
        // Ctrl+click on the other run: both selected, the current one shown, the other overlaid.
        QTreeView *tree = window.runTree();
        const QModelIndex cluster = tree->model()->index(0, 0);
        tree->selectionModel()->select(tree->model()->index(1, 0, cluster),
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QCOMPARE(window.runView()->runId(), newer);
        QCOMPARE(window.runView()->chartsPanel()->comparedRuns(), QStringList{older});
        QCOMPARE(window.runView()->charts()->comparedRuns(), 1);
        tree->selectionModel()->select(tree->model()->index(1, 0, cluster),
                                       QItemSelectionModel::Deselect | QItemSelectionModel::Rows);
        QVERIFY(window.runView()->chartsPanel()->comparedRuns().isEmpty());
    }

    void shortcutsAndFilter()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(!window.filterBox()->hasFocus());
        QTest::keySequence(&window, QKeySequence::Find);
        QTRY_VERIFY(window.filterBox()->hasFocus());
        QTest::keyClicks(window.filterBox(), QStringLiteral("completed"));
        auto *tree = window.findChild<QTreeView *>(QStringLiteral("runTree"));
        QVERIFY(tree);
        QCOMPARE(tree->model()->rowCount(), 1);
        const QModelIndex cluster = tree->model()->index(0, 0);
        QCOMPARE(tree->model()->rowCount(cluster), 1);
        QCOMPARE(tree->model()->index(0, 0, cluster).data().toString(), QStringLiteral("older"));
        QVERIFY(tree->isExpanded(cluster));
        window.filterBox()->setText(QStringLiteral("alpha")); // the cluster's name: all its runs
        QCOMPARE(tree->model()->rowCount(tree->model()->index(0, 0)), 2);
        QStringList shortcuts;
        for (QAction *action : window.findChildren<QAction *>())
            shortcuts.append(action->shortcut().toString());
        QVERIFY(shortcuts.contains(QKeySequence(QKeySequence::New).toString()));
        QVERIFY(shortcuts.contains(QKeySequence(QKeySequence::Refresh).toString()));
    }

    void followsTheProfileFile()
    {
        // The agent saves a cluster's partitions as it reads them, another front a new profile: the window's list
        // and an open form follow, so the form refuses what the partitions do not allow before anything is sent.
        MainWindow window;
        window.clusterPane()->selectCluster(QStringLiteral("beta"));
        NewJobDialog *dialog = window.openNewJob();
        dialog->setCluster(QStringLiteral("alpha"));
        JobSpec spec = dialog->form()->spec();
        spec.partition = QStringLiteral("short");
        spec.wallTimeSeconds = 3600;
        dialog->form()->setSpec(spec);
        QVERIFY(dialog->form()->errors().isEmpty()); // nothing known of alpha's partitions yet
        ProfileStore agent;
        QString error;
        QVERIFY2(agent.update(
                     QStringLiteral("alpha"),
                     [](ClusterProfile &p) {
                         p.partitions = {PartitionCaps{QStringLiteral("short"), 0, 4, 1800, 1}};
                         p.partitionsReadAt = QDateTime::currentDateTimeUtc();
                     },
                     &error),
                 qPrintable(error));
        QVERIFY2(agent.update(
                     QStringLiteral("gamma"), [](ClusterProfile &) {}, &error),
                 qPrintable(error));
        QTRY_VERIFY(window.clusterModel()->names().contains(QStringLiteral("gamma")));
        QCOMPARE(window.clusterPane()->selectedCluster(), QStringLiteral("beta")); // the list kept its selection
        QTRY_COMPARE(dialog->form()->errors().size(), 1);
        QVERIFY2(dialog->form()->errors().constFirst().message.contains(QStringLiteral("allows at most 00:30:00")),
                 qPrintable(dialog->form()->errors().constFirst().message));
        QVERIFY(agent.remove(QStringLiteral("gamma")) && agent.save(&error));
        QTRY_VERIFY(!window.clusterModel()->names().contains(QStringLiteral("gamma")));
        // The window's own save (a check found an hour's partition) reaches the open form too.
        ProfileStore *own = window.agent()->profiles();
        ClusterProfile alpha = own->profile(QStringLiteral("alpha"));
        alpha.partitions = {PartitionCaps{QStringLiteral("short"), 0, 4, 3600, 1}};
        alpha.partitionsReadAt = QDateTime::currentDateTimeUtc();
        own->put(alpha);
        QVERIFY2(own->save(&error), qPrintable(error));
        QTRY_VERIFY(dialog->form()->errors().isEmpty());
        dialog->close();
        QVERIFY(QFile::remove(ProfileStore::defaultPath())); // the other cases start with no profiles
    }

    void saysWhenTheAgentDoesNotAnswer();
    void windowStateIsRemembered()
    {
        {
            MainWindow window;
            window.show();
            window.resize(1000, 650);
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            // The agent restarts runs whether a window is open or not: closing asks nothing, a running run or not.
            window.close();
            QTRY_VERIFY(!window.isVisible());
            QVERIFY(!window.findChild<QMessageBox *>());
        }
        QVERIFY(QSettings().contains(QStringLiteral("window/geometry")));
        MainWindow again;
        QCOMPARE(again.size(), QSize(1000, 650));
    }

private:
    QTemporaryDir m_home;
};

// An agent that does not answer (stopped, swapping: the kernel takes the connection, nothing replies): the
// window says so in its status bar, naming the process, within its deadline.
void TestMainWindow::saysWhenTheAgentDoesNotAnswer()
{
    const QString socketPath = agentPaths().socketPath;
    QVERIFY(makePrivateDirectory(QFileInfo(socketPath).absolutePath()).isEmpty());
    QFile::remove(socketPath);
    const int listening = ::socket(AF_UNIX, SOCK_STREAM, 0);
    QVERIFY(listening >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray path = QFile::encodeName(socketPath);
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    QVERIFY(::bind(listening, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0);
    QVERIFY(::listen(listening, 16) == 0); // never accepted, never answered
    {
        MainWindow window;
        window.show();
        const QString said = QStringLiteral("the agent, pid %1, does not answer: stopped?").arg(getpid());
        QTRY_VERIFY_WITH_TIMEOUT(window.statusBar()->currentMessage().contains(said), kAgentAnswerDeadlineMs + 5000);
    }
    ::close(listening);
    QFile::remove(socketPath);
}

TORCHDECK_TEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
