#pragma once

#include "core/metrics/metricevent.h"
#include "core/metrics/tfeventreader.h"

#include <QList>
#include <QString>
#include <QStringView>

namespace torchdeck {

// What a scalar that a user's script logs (TensorBoard tag, CSV column) means for the run's series. The
// name is normalized first: lowercase, and '/', '-', ' ', '.' become '_' ("Loss/train" is "loss_train").
//   StepLoss        loss, train_loss, loss_train, training_loss, train_loss_step
//   EpochTrainLoss  train_loss_epoch, loss_epoch, epoch_loss
//   ValLoss         val_loss, loss_val, valid_loss, validation_loss, val_loss_epoch, loss_validation
//   ValAccuracy     accuracy, acc, val_acc, val_accuracy, acc_val, accuracy_val, valid_acc,
//                   validation_accuracy, val_acc_epoch
//   LearningRate    lr, learning_rate, any lr_* (Lightning's LearningRateMonitor writes "lr-Adam")
//   Epoch, Step     epoch, step: where the other values belong
//   EpochExtra      any other name ending in _epoch (Lightning's on_epoch=True): a series of its own, by epoch
//   Extra           anything else: a series of its own under the original, unnormalized name
enum class ScalarRole : quint8 {
    Extra,
    EpochExtra,
    StepLoss,
    EpochTrainLoss,
    ValLoss,
    ValAccuracy,
    LearningRate,
    Epoch,
    Step,
};

QString normalizedScalarName(QStringView name);
ScalarRole scalarRole(QStringView name);
// Values that belong to an Epoch event: EpochTrainLoss, ValLoss, ValAccuracy, EpochExtra.
bool isEpochRole(ScalarRole role);

// The values of one TensorBoard step or one CSV row (LightningCsvReader), sorted by the events they belong to.
struct ScalarGroup {
    double loss = kNoValue;
    double lr = kNoValue;
    double epochLoss = kNoValue;
    double valLoss = kNoValue;
    double valAccuracy = kNoValue;
    qint64 epoch = kNoCount; // as logged
    qint64 step = kNoCount;
    QList<NamedValue> extras;
    bool epochValues = false; // any isEpochRole value

    // A value of `role` logged as `name` (an extra's series name); a value logged twice: the later one.
    void add(ScalarRole role, const QString &name, double value);
    // The group's Step event (loss, lr, and its extras unless it has epoch values), then its Epoch event (at
    // epochOfEpochEvent, stepOfEpochEvent), each where it has values; other fields from `position`.
    void appendEvents(const MetricEvent &position, qint64 epochOfEpochEvent, qint64 stepOfEpochEvent,
                      QList<MetricEvent> *events) const;
};

// TensorBoard scalars as events. Consecutive scalars of one step form a group, and a group makes
//  - a Step event at that step of its loss and lr (and extras, unless the group has an Epoch event);
//  - an Epoch event of its val loss, val accuracy, epoch train loss and extras, if it has any of the first
//    three or an EpochExtra. Its epoch is the group's `epoch` scalar where there is one (Lightning's
//    TensorBoardLogger logs one; the event then also has the group's step), else the step itself: that is
//    what `writer.add_scalar("val_loss", v, epoch)` writes.
// A Step event has an epoch only from an `epoch` scalar; a `step` scalar replaces the group's step. Times
// are the wall time of the group's last scalar. A step whose scalars come in two calls makes events in each
// (the scalars of one Event always come together). `epochBase` is what the writer counts epochs from: 0 for
// Lightning's TensorBoardLogger (its `epoch` scalar is current_epoch), shown from 1 as everywhere else.
QList<MetricEvent> tensorBoardEvents(const QList<TfScalar> &scalars, int epochBase = 1);

} // namespace torchdeck
