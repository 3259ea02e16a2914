#include "core/metrics/runmetrics.h"
#include "core/metrics/seriesmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace torchdeck;

namespace {
MetricEvent step(qint64 s, double loss)
{
    MetricEvent e;
    e.kind = MetricEventKind::Step;
    e.step = s;
    e.loss = loss;
    e.lr = 0.1;
    return e;
}

MetricEvent resumeAt(qint64 s)
{
    MetricEvent e;
    e.kind = MetricEventKind::Start;
    e.resumed = true;
    e.resumeStep = s;
    e.resumeEpoch = 0;
    return e;
}
} // namespace

class TestSeriesModel : public QObject {
    Q_OBJECT
private slots:
    void liveAppendsAreRowsInserted();
    void resumeFlagsRowsThroughDataChanged();
    void discardInTheSameBatchAsTheAppend();
    void replaceResetsTheModel();
    void headersAndRoles();
    void runDeletedFirst();
};

void TestSeriesModel::liveAppendsAreRowsInserted()
{
    RunMetrics run;
    SeriesModel model(&run, SeriesKind::TrainLoss);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    run.ingest({step(1, 0.5), step(2, 0.4), step(3, 0.3)});
    QCOMPARE(inserted.size(), 1); // one batch, one signal
    QCOMPARE(inserted[0][1].toInt(), 0);
    QCOMPARE(inserted[0][2].toInt(), 2);
    run.ingest(step(4, 0.2));
    QCOMPARE(inserted.size(), 2);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.index(3, SeriesModel::YColumn).data().toDouble(), 0.2);
    QCOMPARE(model.index(3, 0).data(SeriesModel::XRole).toDouble(), 4.0);
    // An epoch event does not touch the step series.
    MetricEvent epoch;
    epoch.kind = MetricEventKind::Epoch;
    epoch.epoch = 1;
    epoch.loss = 0.3;
    run.ingest(epoch);
    QCOMPARE(inserted.size(), 2);
}

void TestSeriesModel::resumeFlagsRowsThroughDataChanged()
{
    RunMetrics run;
    SeriesModel model(&run, SeriesKind::TrainLoss);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<MetricEvent> first{resumeAt(0)};
    for (int i = 1; i <= 10; ++i)
        first.append(step(i, 1.0 / i));
    run.ingest(first, 0);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    run.ingest(resumeAt(6), 1);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed[0][0].toModelIndex().row(), 6);
    QCOMPARE(changed[0][1].toModelIndex().row(), 9);
    QVERIFY(changed[0][2].value<QList<int>>().contains(SeriesModel::DiscardedRole));
    QVERIFY(model.index(6, 0).data(SeriesModel::DiscardedRole).toBool());
    QVERIFY(!model.index(5, 0).data(SeriesModel::DiscardedRole).toBool());
    run.ingest({step(7, 0.9), step(8, 0.8)}, 1);
    QCOMPARE(model.rowCount(), 12);
    QCOMPARE(model.index(10, SeriesModel::AttemptColumn).data().toInt(), 1);
    QCOMPARE(model.index(10, SeriesModel::DiscardedColumn).data().toBool(), false);
}

void TestSeriesModel::discardInTheSameBatchAsTheAppend()
{
    RunMetrics run;
    SeriesModel model(&run, SeriesKind::TrainLoss);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    run.ingest({step(1, 1), step(2, 1), step(3, 1)});
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    // Rows 1..2 are known to the model, rows 3..5 come and partly go within this batch.
    run.ingest({step(4, 1), step(5, 1), step(6, 1), resumeAt(1), step(2, 2)}, 1);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed[0][0].toModelIndex().row(), 1);
    QCOMPARE(changed[0][1].toModelIndex().row(), 2);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.rowCount(), 7);
    QVERIFY(model.index(4, 0).data(SeriesModel::DiscardedRole).toBool());
    QVERIFY(!model.index(6, 0).data(SeriesModel::DiscardedRole).toBool());
}

void TestSeriesModel::replaceResetsTheModel()
{
    RunMetrics run;
    SeriesModel model(&run, SeriesKind::LearningRate);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    run.ingest({step(1, 1), step(2, 1)});
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    RunSeries other;
    for (int i = 1; i <= 5; ++i)
        other.apply(step(i, 1));
    run.replace(other);
    QCOMPARE(reset.size(), 1);
    QCOMPARE(model.rowCount(), 5);
    run.replace(RunSeries());
    QCOMPARE(model.rowCount(), 0);
}

void TestSeriesModel::headersAndRoles()
{
    RunMetrics run;
    SeriesModel steps(&run, SeriesKind::TrainLoss);
    SeriesModel epochs(&run, SeriesKind::ValLoss);
    QCOMPARE(steps.headerData(SeriesModel::XColumn, Qt::Horizontal).toString(), QStringLiteral("step"));
    QCOMPARE(epochs.headerData(SeriesModel::XColumn, Qt::Horizontal).toString(), QStringLiteral("epoch"));
    QCOMPARE(epochs.headerData(SeriesModel::YColumn, Qt::Horizontal).toString(), QStringLiteral("val loss"));
    QCOMPARE(steps.roleNames().value(SeriesModel::YRole), QByteArray("y"));
    QCOMPARE(steps.columnCount(), 4);
}

void TestSeriesModel::runDeletedFirst()
{
    auto *run = new RunMetrics;
    SeriesModel model(run, SeriesKind::TrainLoss);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    run->ingest(step(1, 1));
    delete run;
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.index(0, 0).isValid());
}

QTEST_GUILESS_MAIN(TestSeriesModel)
#include "tst_seriesmodel.moc"
