#include "gui/clustercheckdialog.h"
#include "gui/clusterpane.h"
#include "gui/clusterprofiledialog.h"
#include "guisandbox.h"

#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace torchdeck;
using namespace torchdeck::testing;

// "Check cluster" from the window against the sandbox: the profile edited in its dialog is the one checked,
// each item appears as it is checked, and a failing item shows the cluster's own message.
class TestGuiCheck : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { initSandboxTest(m_home); }

    void checklistFollowsTheEditedProfile()
    {
        ShownWindow shown; // the window attaches to its agent
        QVERIFY2(shown.window, qPrintable(shown.agent.error));
        MainWindow &window = *shown.window;
        ClusterPane *pane = window.clusterPane();
        pane->selectCluster(kSandboxHost);
        QCOMPARE(pane->selectedCluster(), kSandboxHost);

        setWorkDirectory(pane, QStringLiteral("/proc/torchdeck"));
        ClusterCheckDialog *dialog = pane->checkCluster(kSandboxHost);
        QVERIFY(dialog->isRunning());
        QList<int> rowsSeen; // the list grows one line per item, while the check runs
        connect(dialog->list()->model(), &QAbstractItemModel::rowsInserted, this,
                [&] { rowsSeen.append(dialog->list()->topLevelItemCount()); });
        QSignalSpy checked(dialog, &ClusterCheckDialog::checked);
        QVERIFY(checked.wait(90000));
        QCOMPARE(rowsSeen, (QList<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
        QTreeWidgetItem *last = dialog->list()->topLevelItem(5);
        QCOMPARE(last->text(1), QStringLiteral("FAIL"));
        QVERIFY2(last->text(2).startsWith(QStringLiteral("/proc/torchdeck is not writable: ")),
                 qPrintable(last->text(2)));
        for (int row = 0; row < 5; ++row)
            QCOMPARE(dialog->list()->topLevelItem(row)->text(1), QStringLiteral("pass"));
        // Debian 12's own torchrun is broken (a warning); a cluster's PyTorch passes.
        QTreeWidgetItem *launcher = dialog->list()->topLevelItem(6);
        QCOMPARE(launcher->text(0), QStringLiteral("PyTorch launcher"));
        QVERIFY2(launcher->text(1) == u"warning" || launcher->text(1) == u"pass", qPrintable(launcher->text(1)));
        // Whether a job may requeue itself is not known yet: the probe job has no work directory to run in.
        QTreeWidgetItem *partitions = dialog->list()->topLevelItem(9);
        QCOMPARE(partitions->text(0), QStringLiteral("Partitions"));
        QCOMPARE(partitions->text(1), QStringLiteral("pass"));
        QTreeWidgetItem *accounts = dialog->list()->topLevelItem(10); // no accounting here: said, and passed
        QCOMPARE(accounts->text(0), QStringLiteral("Accounts"));
        QCOMPARE(accounts->text(1), QStringLiteral("pass"));
        QTreeWidgetItem *requeue = dialog->list()->topLevelItem(11);
        QCOMPARE(requeue->text(0), QStringLiteral("In-job requeue"));
        QCOMPARE(requeue->text(1), QStringLiteral("warning"));
        QVERIFY2(requeue->text(2).startsWith(QStringLiteral("could not submit the test job")),
                 qPrintable(requeue->text(2)));
        QVERIFY2(dialog->statusText().contains(QStringLiteral("1 check(s) failed")), qPrintable(dialog->statusText()));

        setWorkDirectory(pane, m_home.filePath(QStringLiteral("work")));
        rowsSeen.clear();
        dialog->start();
        QVERIFY(checked.wait(90000));
        QCOMPARE(rowsSeen.size(), 12);
        for (const CheckItem &item : dialog->items())
            QVERIFY2(item.ok, qPrintable(item.name + QStringLiteral(": ") + item.detail));
        QVERIFY2(dialog->statusText().contains(QStringLiteral("All 12")), qPrintable(dialog->statusText()));
        // The sandbox lets a job requeue itself: the profile keeps it, and new runs requeue themselves.
        QCOMPARE(dialog->items().constLast().finding, QStringLiteral("allowed"));
        ProfileStore profiles;
        QString error;
        QVERIFY(profiles.load(&error));
        QCOMPARE(int(profiles.profile(kSandboxHost).inJobRequeue), int(InJobRequeue::Allowed));
        // And its partitions, with when they were read: the job form checks against them.
        QCOMPARE(profiles.profile(kSandboxHost).partitions.size(), 2);
        QVERIFY(profiles.profile(kSandboxHost).partitionsReadAt.isValid());
    }

private:
    void setWorkDirectory(ClusterPane *pane, const QString &path)
    {
        ClusterProfileDialog *profile = pane->editProfile(kSandboxHost);
        auto *edit = qobject_cast<QLineEdit *>(profile->field(QStringLiteral("work_directory")));
        QVERIFY(edit);
        edit->setText(path);
        QVERIFY2(profile->save(), qPrintable(profile->errorText()));
        profile->accept();
    }

    QTemporaryDir m_home;
};

QTEST_MAIN(TestGuiCheck)
#include "tst_guicheck.moc"
