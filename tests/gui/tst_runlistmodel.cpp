#include "gui/runlistmodel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace torchdeck;

class TestRunListModel : public QObject {
    Q_OBJECT
private:
    static RunRecord run(const QString &id, const QString &name, int minutesAgo)
    {
        RunRecord r;
        r.id = id;
        r.name = name;
        r.cluster = QStringLiteral("hpc");
        r.state = QStringLiteral("running");
        r.created = QDateTime::currentDateTimeUtc().addSecs(-60 * minutesAgo);
        r.epochsDone = 2;
        r.epochsTotal = 10;
        r.lastLoss = 0.04213;
        r.etaSeconds = 3725;
        return r;
    }

private slots:
    void columnsShowProgress()
    {
        RunListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns({run(QStringLiteral("b"), QStringLiteral("new"), 1), run(QStringLiteral("a"), QStringLiteral("old"), 9)},
                      {{QStringLiteral("b"), {QStringLiteral("17"), QStringLiteral("18")}}});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, RunListModel::NameColumn).data().toString(), QStringLiteral("new"));
        QCOMPARE(model.index(0, RunListModel::EpochColumn).data().toString(), QStringLiteral("2/10"));
        QCOMPARE(model.index(0, RunListModel::LossColumn).data().toString(), QStringLiteral("0.04213"));
        QCOMPARE(model.index(0, RunListModel::EtaColumn).data().toString(), QStringLiteral("1h 02m"));
        QCOMPARE(model.index(0, RunListModel::JobsColumn).data().toString(), QStringLiteral("17, 18"));
        QCOMPARE(model.index(1, RunListModel::JobsColumn).data().toString(), QString());
        QCOMPARE(model.index(1, 0).data(RunListModel::RunIdRole).toString(), QStringLiteral("a"));
    }

    void updatesInPlaceAndInsertsNewestFirst()
    {
        RunListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns({run(QStringLiteral("b"), QStringLiteral("mid"), 5), run(QStringLiteral("a"), QStringLiteral("old"), 9)}, {});
        RunRecord changed = *model.run(QStringLiteral("a"));
        changed.state = QStringLiteral("completed");
        model.updateRun(changed, {QStringLiteral("3")});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1, RunListModel::StateColumn).data().toString(), QStringLiteral("completed"));
        model.updateRun(run(QStringLiteral("c"), QStringLiteral("newest"), 0), {QStringLiteral("4")});
        model.updateRun(run(QStringLiteral("d"), QStringLiteral("between"), 7), {});
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("newest"));
        QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("between"));
        QCOMPARE(model.rowOf(QStringLiteral("a")), 3);
    }

    void filterMatchesJobIdsAndStates()
    {
        RunListModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setFilterKeyColumn(-1);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns({run(QStringLiteral("b"), QStringLiteral("mid"), 5), run(QStringLiteral("a"), QStringLiteral("old"), 9)},
                      {{QStringLiteral("a"), {QStringLiteral("4711")}}});
        proxy.setFilterFixedString(QStringLiteral("4711"));
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("old"));
    }

    void durations()
    {
        QCOMPARE(formatDuration(kNoValue), QString());
        QCOMPARE(formatDuration(45), QStringLiteral("45s"));
        QCOMPARE(formatDuration(125), QStringLiteral("2m 05s"));
    }
};

QTEST_MAIN(TestRunListModel)
#include "tst_runlistmodel.moc"
