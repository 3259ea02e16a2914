#include "core/metrics/scalarmapping.h"
#include "metricevents.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace Qt::StringLiterals;

namespace {

// "3:loss=0.5 lr=0.1|4:val_loss=0.4": Events at steps 3 and 4; wall time = 10 * step.
QList<TfScalar> scalarsOf(const QString &spec)
{
    QList<TfScalar> scalars;
    for (const QString &event : spec.split(u'|')) {
        const qint64 step = event.section(u':', 0, 0).toLongLong();
        for (const QString &value : event.section(u':', 1).split(u' ', Qt::SkipEmptyParts))
            scalars.append({value.section(u'=', 0, 0), step, 10.0 * double(step), value.section(u'=', 1).toDouble()});
    }
    return scalars;
}

} // namespace

class TestScalarMapping : public QObject {
    Q_OBJECT
private slots:
    void roles_data();
    void roles();
    void normalizedNames();
    void tensorBoardEvents_data();
    void tensorBoardEvents();
    void eventTimes();
    void lightningCountsEpochsFromZero();
};

void TestScalarMapping::roles_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<ScalarRole>("role");
    using R = ScalarRole;
    const std::pair<const char16_t *, ScalarRole> rows[] = {
        {u"loss", R::StepLoss},
        {u"Loss/train", R::StepLoss},
        {u"train-loss", R::StepLoss},
        {u"training loss", R::StepLoss},
        {u"train_loss_step", R::StepLoss},
        {u"train_loss_epoch", R::EpochTrainLoss},
        {u"Loss/epoch", R::EpochTrainLoss},
        {u"epoch_loss", R::EpochTrainLoss},
        {u"val_loss", R::ValLoss},
        {u"Loss/val", R::ValLoss},
        {u"valid.loss", R::ValLoss},
        {u"Validation Loss", R::ValLoss},
        {u"val_loss_epoch", R::ValLoss},
        {u"loss/validation", R::ValLoss},
        {u"Accuracy", R::ValAccuracy},
        {u"acc", R::ValAccuracy},
        {u"val_acc", R::ValAccuracy},
        {u"val/accuracy", R::ValAccuracy},
        {u"Accuracy/val", R::ValAccuracy},
        {u"valid_acc", R::ValAccuracy},
        {u"validation_accuracy", R::ValAccuracy},
        {u"val_acc_epoch", R::ValAccuracy},
        {u"lr", R::LearningRate},
        {u"learning_rate", R::LearningRate},
        {u"lr-Adam", R::LearningRate},
        {u"lr-SGD/pg1", R::LearningRate},
        {u"epoch", R::Epoch},
        {u"Epoch", R::Epoch},
        {u"step", R::Step},
        {u"train_acc_epoch", R::EpochExtra},
        {u"grad_norm", R::Extra},
        {u"train_acc", R::Extra},
        {u"train_acc_step", R::Extra},
        {u"lrate", R::Extra},
        {u"val_f1", R::Extra},
        {u"", R::Extra},
    };
    for (const auto &[name, role] : rows)
        QTest::addRow("%s", qPrintable(QString::fromUtf16(name))) << QString::fromUtf16(name) << role;
}

void TestScalarMapping::roles()
{
    QFETCH(QString, name);
    QFETCH(ScalarRole, role);
    QCOMPARE(scalarRole(name), role);
}

void TestScalarMapping::normalizedNames()
{
    QCOMPARE(normalizedScalarName(u"Loss/Train-Set.v2 x"), u"loss_train_set_v2_x");
    QVERIFY(isEpochRole(ScalarRole::ValAccuracy));
    QVERIFY(isEpochRole(ScalarRole::EpochExtra));
    QVERIFY(!isEpochRole(ScalarRole::Extra));
    QVERIFY(!isEpochRole(ScalarRole::Epoch));
}

void TestScalarMapping::tensorBoardEvents_data()
{
    QTest::addColumn<QString>("scalars");
    QTest::addColumn<QStringList>("events");
    QTest::addRow("one event per step") << u"1:loss=0.5|1:lr=0.1|1:grad_norm=2|2:loss=0.25"_s
                                        << QStringList{u"Step step=1 loss=0.5 lr=0.1 grad_norm=2"_s,
                                                       u"Step step=2 loss=0.25"_s};
    QTest::addRow("val by epoch as step")
        << u"2:val_loss=0.4|2:accuracy=0.9"_s << QStringList{u"Epoch epoch=2 val_loss=0.4 val_acc=0.9"_s};
    QTest::addRow("same step, not consecutive")
        << u"1:loss=0.5|2:loss=0.25|1:val_loss=0.4"_s
        << QStringList{u"Step step=1 loss=0.5"_s, u"Step step=2 loss=0.25"_s, u"Epoch epoch=1 val_loss=0.4"_s};
    QTest::addRow("extras go with the epoch")
        << u"10:loss=0.5 lr=0.1 grad_norm=2 val_loss=0.4"_s
        << QStringList{u"Step step=10 loss=0.5 lr=0.1"_s, u"Epoch epoch=10 val_loss=0.4 grad_norm=2"_s};
    QTest::addRow("extras only") << u"3:grad_norm=2 val_f1=0.5"_s
                                 << QStringList{u"Step step=3 grad_norm=2 val_f1=0.5"_s};
    QTest::addRow("epoch scalar (Lightning)")
        << u"99:train_loss_step=0.5 epoch=1|99:val_loss=0.4 val_acc=0.8 epoch=1|99:train_loss_epoch=0.6 epoch=1"_s
        << QStringList{u"Step epoch=1 step=99 loss=0.5"_s,
                       u"Epoch epoch=1 step=99 loss=0.6 val_loss=0.4 val_acc=0.8"_s};
    QTest::addRow("epoch scalar on a step")
        << u"5:loss=0.5 epoch=2"_s << QStringList{u"Step epoch=2 step=5 loss=0.5"_s};
    QTest::addRow("_epoch extra") << u"7:train_acc_epoch=0.7 epoch=3"_s
                                  << QStringList{u"Epoch epoch=3 step=7 train_acc_epoch=0.7"_s};
    QTest::addRow("step scalar") << u"0:loss=0.5 step=42"_s << QStringList{u"Step step=42 loss=0.5"_s};
    QTest::addRow("positions only") << u"3:epoch=1 step=3"_s << QStringList{};
    QTest::addRow("twice at one step") << u"4:loss=0.5 grad_norm=1 loss=0.4 grad_norm=3"_s
                                       << QStringList{u"Step step=4 loss=0.4 grad_norm=3"_s};
    QTest::addRow("negative step") << u"-1:loss=0.5"_s << QStringList{u"Step loss=0.5"_s};
    QTest::addRow("nothing") << QString() << QStringList{};
}

void TestScalarMapping::tensorBoardEvents()
{
    QFETCH(QString, scalars);
    QFETCH(QStringList, events);
    QCOMPARE(testing::describeEvents(
                 torchdeck::tensorBoardEvents(scalars.isEmpty() ? QList<TfScalar>{} : scalarsOf(scalars))),
             events);
}

void TestScalarMapping::eventTimes()
{
    QList<TfScalar> scalars = scalarsOf(u"1:loss=0.5|1:lr=0.1"_s);
    scalars[1].wallTime = 12.5;
    const QList<MetricEvent> events = torchdeck::tensorBoardEvents(scalars);
    QCOMPARE(events.size(), 1);
    QCOMPARE(events[0].time, 12.5); // the group's last scalar
    QCOMPARE(events[0].schema, 1);
}

void TestScalarMapping::lightningCountsEpochsFromZero()
{
    // Lightning's TensorBoardLogger logs current_epoch: shown from 1, as its CSV and its progress bar are.
    const QList<MetricEvent> events =
        torchdeck::tensorBoardEvents(scalarsOf(u"99:val_loss=0.4 epoch=0|199:val_loss=0.3 epoch=1"_s), 0);
    QCOMPARE(events.size(), 2);
    QCOMPARE(events[0].epoch, 1);
    QCOMPARE(events[1].epoch, 2);
    QCOMPARE(events[1].step, 199);
}

TORCHDECK_TEST_MAIN(TestScalarMapping)
#include "tst_scalarmapping.moc"
