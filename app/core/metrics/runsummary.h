#pragma once

#include "core/metrics/runseries.h"

namespace torchdeck {

// A run's final and best values, as the overlay's table lists them beside the charts: final is the last
// point of the visible curve (what the run ended with, or has now), best the lowest loss or highest accuracy
// on it. NaN where the run has no such series.
struct RunSummary {
    double steps = kNoValue; // the last step drawn
    double finalLoss = kNoValue;
    double bestLoss = kNoValue;
    double finalValLoss = kNoValue;
    double bestValLoss = kNoValue;
    double bestValLossEpoch = kNoValue;
    double finalAccuracy = kNoValue;
    double bestAccuracy = kNoValue;
};

RunSummary summarize(const RunSeries &series);

} // namespace torchdeck
