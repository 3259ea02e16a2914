#pragma once

#include "core/metrics/metricevent.h"

#include <QList>
#include <QString>

namespace torchdeck {

// In DDP every rank's step takes as long as the slowest rank's compute: the others wait for it in the
// gradient all-reduce. The trainer reports each rank's compute per step (RunInfo::rankComputeSeconds); the
// dashboard names the slowest and how far it is from the median.
struct SlowestRank {
    int rank = -1;             // -1: fewer than two ranks reported
    double seconds = kNoValue; // its compute per step
    double median = kNoValue;  // the median rank's
    double ratio = kNoValue;   // seconds / median
};

SlowestRank slowestRank(const QList<double> &computeSeconds);

// "slowest rank 1: 1.9x the median compute per step (11.3 ms vs 6.1 ms)"; empty when not known.
QString slowestRankSummary(const SlowestRank &slowest);

} // namespace torchdeck
