#include "gui/checkpointlistmodel.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace torchdeck;

class TestCheckpointListModel : public QObject {
    Q_OBJECT
private slots:
    void rowsShowTheCheckpoints()
    {
        CheckpointListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        CheckpointRecord first;
        first.path = QStringLiteral("/runs/x/checkpoints/checkpoint-0000000064.pt");
        first.epoch = 1;
        first.step = 64;
        first.bytes = 2'700'000;
        first.time = 1.7e9;
        first.reason = QStringLiteral("epoch");
        CheckpointRecord torn = first;
        torn.path = QStringLiteral("/runs/x/checkpoints/checkpoint-0000000128.pt");
        torn.step = 128;
        torn.valid = false;
        model.setCheckpoints({first, torn});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, CheckpointListModel::StepColumn).data().toLongLong(), 64);
        QCOMPARE(model.index(0, CheckpointListModel::FileColumn).data().toString(),
                 QStringLiteral("checkpoint-0000000064.pt"));
        QCOMPARE(model.index(0, 0).data(CheckpointListModel::PathRole).toString(), first.path);
        QVERIFY(!model.index(0, CheckpointListModel::SizeColumn).data().toString().isEmpty());
        QVERIFY(
            model.index(1, CheckpointListModel::ReasonColumn).data().toString().contains(QStringLiteral("invalid")));
        model.setCheckpoints({});
        QCOMPARE(model.rowCount(), 0);
    }
};

TORCHDECK_TEST_MAIN(TestCheckpointListModel)
#include "tst_checkpointlistmodel.moc"
