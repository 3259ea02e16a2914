#include "gui/runtreemodel.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace torchdeck;

// Runs grouped by cluster: progress, ETA, every job id and the times of each run; live updates in place.
class TestRunTreeModel : public QObject {
    Q_OBJECT
private:
    static RunRecord run(const QString &id, const QString &name, int minutesAgo,
                         const QString &cluster = QStringLiteral("hpc"))
    {
        RunRecord r;
        r.id = id;
        r.name = name;
        r.cluster = cluster;
        r.state = QStringLiteral("running");
        r.created = QDateTime::currentDateTimeUtc().addSecs(-60 * minutesAgo);
        r.updated = r.created.addSecs(30);
        r.epochsDone = 2;
        r.epochsTotal = 10;
        r.lastLoss = 0.04213;
        r.etaSeconds = 3725;
        return r;
    }

private slots:
    void columnsShowProgress()
    {
        RunTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(
            {run(QStringLiteral("b"), QStringLiteral("new"), 1), run(QStringLiteral("a"), QStringLiteral("old"), 9)},
            {{QStringLiteral("b"), {QStringLiteral("17"), QStringLiteral("18")}}});
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex hpc = model.clusterIndex(QStringLiteral("hpc"));
        QCOMPARE(hpc.data().toString(), QStringLiteral("hpc: 2 run(s), 2 active")); // spanned over the row
        QCOMPARE(hpc.data(RunTreeModel::ClusterRole).toString(), QStringLiteral("hpc"));
        QCOMPARE(model.rowCount(hpc), 2);
        QCOMPARE(model.index(0, RunTreeModel::NameColumn, hpc).data().toString(), QStringLiteral("new"));
        QCOMPARE(model.index(0, RunTreeModel::ProgressColumn, hpc).data().toString(), QStringLiteral("epoch 2/10"));
        QCOMPARE(model.index(0, RunTreeModel::LossColumn, hpc).data().toString(), QStringLiteral("0.04213"));
        QCOMPARE(model.index(0, RunTreeModel::EtaColumn, hpc).data().toString(), QStringLiteral("1h02m"));
        QCOMPARE(model.index(0, RunTreeModel::JobsColumn, hpc).data().toString(), QStringLiteral("18 (2 jobs)"));
        QCOMPARE(model.index(0, RunTreeModel::JobsColumn, hpc).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("Jobs of this run, first to latest: 17, 18"));
        QCOMPARE(model.headerData(RunTreeModel::JobsColumn, Qt::Horizontal).toString(), QStringLiteral("Latest job"));
        QVERIFY(!model.index(0, RunTreeModel::CreatedColumn, hpc).data().toString().isEmpty());
        QVERIFY(!model.index(0, RunTreeModel::UpdatedColumn, hpc).data().toString().isEmpty());
        QCOMPARE(model.index(1, RunTreeModel::JobsColumn, hpc).data().toString(), QString());
        QCOMPARE(model.index(1, 0, hpc).data(RunTreeModel::RunIdRole).toString(), QStringLiteral("a"));
        QCOMPARE(model.jobIds(QStringLiteral("b")), (QStringList{QStringLiteral("17"), QStringLiteral("18")}));
    }

    void endedRunsHaveNoEta()
    {
        RunTreeModel model;
        RunRecord done = run(QStringLiteral("a"), QStringLiteral("done"), 3);
        done.state = QStringLiteral("completed");
        done.epochsDone = 10;
        model.setRuns({done}, {});
        QCOMPARE(model.indexOf(QStringLiteral("a"), RunTreeModel::EtaColumn).data().toString(), QString());
        QCOMPARE(model.indexOf(QStringLiteral("a"), RunTreeModel::ProgressColumn).data().toString(),
                 QStringLiteral("epoch 10/10"));
        QCOMPARE(model.index(0, RunTreeModel::NameColumn).data().toString(), QStringLiteral("hpc: 1 run(s)"));
    }

    void groupsByClusterInNameOrder()
    {
        RunTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns({run(QStringLiteral("a"), QStringLiteral("z1"), 1, QStringLiteral("zeta")),
                       run(QStringLiteral("b"), QStringLiteral("a1"), 2, QStringLiteral("alpha")),
                       run(QStringLiteral("c"), QStringLiteral("z2"), 0, QStringLiteral("zeta"))},
                      {});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, 0).data(RunTreeModel::ClusterRole).toString(), QStringLiteral("alpha"));
        QCOMPARE(model.index(1, 0).data(RunTreeModel::ClusterRole).toString(), QStringLiteral("zeta"));
        QCOMPARE(model.index(0, 0, model.index(1, 0)).data().toString(),
                 QStringLiteral("z2")); // newest first
        QCOMPARE(model.indexOf(QStringLiteral("a")).parent(), model.index(1, 0));
        QCOMPARE(model.runCount(), 3);
    }

    void updatesInPlaceAndInsertsNewestFirst()
    {
        RunTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(
            {run(QStringLiteral("b"), QStringLiteral("mid"), 5), run(QStringLiteral("a"), QStringLiteral("old"), 9)},
            {});
        RunRecord changed = *model.run(QStringLiteral("a"));
        changed.state = QStringLiteral("completed");
        model.updateRun(changed, {QStringLiteral("3")});
        const QModelIndex hpc = model.clusterIndex(QStringLiteral("hpc"));
        QCOMPARE(model.rowCount(hpc), 2);
        QCOMPARE(model.index(1, RunTreeModel::StateColumn, hpc).data().toString(), QStringLiteral("completed"));
        model.updateRun(run(QStringLiteral("c"), QStringLiteral("newest"), 0), {QStringLiteral("4")});
        model.updateRun(run(QStringLiteral("d"), QStringLiteral("between"), 7), {});
        QCOMPARE(model.rowCount(hpc), 4);
        QCOMPARE(model.index(0, 0, hpc).data().toString(), QStringLiteral("newest"));
        QCOMPARE(model.index(2, 0, hpc).data().toString(), QStringLiteral("between"));
        QCOMPARE(model.indexOf(QStringLiteral("a")).row(), 3);
        model.updateRun(run(QStringLiteral("e"), QStringLiteral("elsewhere"), 0, QStringLiteral("aaa")), {});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, 0).data(RunTreeModel::ClusterRole).toString(), QStringLiteral("aaa"));
        QCOMPARE(model.indexOf(QStringLiteral("a")).parent().row(), 1);
        // A run continued on another cluster moves to its group; a group left empty goes.
        RunRecord moved = *model.run(QStringLiteral("e"));
        moved.cluster = QStringLiteral("hpc");
        model.updateRun(moved, {QStringLiteral("5")});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.rowCount(model.clusterIndex(QStringLiteral("hpc"))), 5);
        QCOMPARE(model.indexOf(QStringLiteral("e")).parent(), model.clusterIndex(QStringLiteral("hpc")));
        moved.cluster = QStringLiteral("zzz");
        model.updateRun(moved, {});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.rowCount(model.clusterIndex(QStringLiteral("hpc"))), 4);
        QCOMPARE(model.run(QStringLiteral("e"))->cluster, QStringLiteral("zzz"));
    }

    void filterMatchesJobIdsAndStates()
    {
        RunTreeModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setFilterKeyColumn(-1);
        proxy.setRecursiveFilteringEnabled(true);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(
            {run(QStringLiteral("b"), QStringLiteral("mid"), 5), run(QStringLiteral("a"), QStringLiteral("old"), 9)},
            {{QStringLiteral("a"), {QStringLiteral("4711")}}});
        proxy.setFilterFixedString(QStringLiteral("4711"));
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 1);
        QCOMPARE(proxy.index(0, 0, proxy.index(0, 0)).data().toString(), QStringLiteral("old"));
    }

    void durations()
    {
        QCOMPARE(formatDuration(kNoValue), QString());
        QCOMPARE(formatDuration(45), QStringLiteral("45s"));
        QCOMPARE(formatDuration(125), QStringLiteral("2m05s"));
    }
};

TORCHDECK_TEST_MAIN(TestRunTreeModel)
#include "tst_runtreemodel.moc"
