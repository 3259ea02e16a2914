#pragma once

#include <QStringView>

namespace torchdeck {

// What a name printed in a log means, by the name table of docs/metrics-schema.md (scalarRole, as for logger
// files) extended for logs: eval_loss and the test loss are validation, Acc@1 is accuracy, learning_rate is
// lr, and positions (epoch, step, iter, num_updates, batch) and times have names of their own. "Average
// loss" is loss; in a test or validation pass (`validation`) a loss or accuracy is the validation one.
enum class LogRole : quint8 {
    Extra,     // a named series of its own
    Ignore,    // Lightning's v_num, tqdm's ETA: not a value of the run
    Summary,   // the Hugging Face Trainer's end-of-run summary (train_runtime): the line is not plotted
    Epoch,     // with a total ("epoch: 3/10"): also the planned epochs
    Step,      // with a total ("step 5/100"): the step inside the epoch and the steps per epoch
    Batch,     // the position inside the epoch ("batch 100/938", a test pass' "Test: [10/79]")
    Loss,      // train loss: by step on a line with a step, else the epoch's
    EpochLoss, // train_loss_epoch, epoch_loss
    ValLoss,
    Accuracy,    // unprefixed: the training accuracy on a step's line, the validation one on an epoch's
    ValAccuracy, // val_acc, eval_accuracy, test_acc, ...
    Lr,
    Seconds, // time, epoch_time, training_time + validation_time: the epoch's duration (on an epoch line)
    SamplesPerSecond,
};

LogRole logRole(QStringView name, bool validation);

} // namespace torchdeck
