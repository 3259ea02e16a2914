#pragma once

#include "core/metrics/metricevent.h"
#include "core/metrics/tfeventreader.h"

#include <QByteArray>
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

// TensorBoard scalars as events. Consecutive scalars of one step form a group, and a group makes
//  - a Step event at that step of its loss and lr (and extras, unless the group has an Epoch event);
//  - an Epoch event of its val loss, val accuracy, epoch train loss and extras, if it has any of the first
//    three or an EpochExtra. Its epoch is the group's `epoch` scalar where there is one (Lightning's
//    TensorBoardLogger logs one; the event then also has the group's step), else the step itself: that is
//    what `writer.add_scalar("val_loss", v, epoch)` writes.
// A Step event has an epoch only from an `epoch` scalar; a `step` scalar replaces the group's step. Times
// are the wall time of the group's last scalar. A step whose scalars come in two calls makes events in each
// (the scalars of one Event always come together).
QList<MetricEvent> tensorBoardEvents(const QList<TfScalar> &scalars);

// PyTorch Lightning's CSVLogger metrics.csv. The logger rewrites the whole file when a new column appears,
// so it is read whole each time and progress is counted in rows, not bytes. A row (one log_metrics call)
// makes an Epoch event when it holds an epoch value (isEpochRole), with the row's extras, else a Step event
// of its loss, lr and extras; a row with both makes both, Step first. Events have step = the `step` cell
// and epoch = the `epoch` cell + 1 (Lightning counts epochs from 0), and no time (the file has none).
class LightningCsvReader {
public:
    // The events of the complete data rows after the first `rowsAlreadyRead`. A last row without its '\n'
    // is still being written: it counts next time. RFC 4180 quoting; empty cells are no value.
    QList<MetricEvent> read(const QByteArray &wholeFile, qsizetype rowsAlreadyRead);
    // Complete data rows of the file last read; fewer than rowsAlreadyRead means it was replaced.
    qsizetype rows() const { return m_rows; }
    // Cells of the rows returned so far that are not numbers (skipped).
    qint64 malformed() const { return m_malformed; }

private:
    qsizetype m_rows = 0;
    qint64 m_malformed = 0;
};

} // namespace torchdeck
