#pragma once

#include <QString>

namespace torchdeck {

// The series of one run: by global step from step events, by epoch from epoch events.
enum class SeriesKind : quint8 {
    TrainLoss,       // step.loss by step
    LearningRate,    // step.lr by step
    Throughput,      // step.samples_per_s by step
    EpochTrainLoss,  // epoch.train_loss by epoch
    ValLoss,         // epoch.val_loss by epoch
    ValAccuracy,     // epoch.val_accuracy by epoch
    EpochSeconds,    // epoch.seconds by epoch
    EpochThroughput, // epoch.samples_per_s by epoch
};
inline constexpr int kSeriesKindCount = 8;

inline bool isByEpoch(SeriesKind kind)
{
    return kind >= SeriesKind::EpochTrainLoss;
}

QString seriesName(SeriesKind kind); // "train loss", "val accuracy", ...

} // namespace torchdeck
