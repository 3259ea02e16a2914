#pragma once

#include "term/render/watchsnapshot.h"

#include <QStringList>

namespace torchdeck::term {

// The full frame of `torchdeck watch`: cursor home, then exactly `rows` lines, each cleared first and none
// wider than `cols` cells; lines are joined by CR LF, with none after the last (the screen must not scroll).
// From top to bottom: the runs table, the loss chart and the epoch-time bars (side by side from 100 columns,
// else stacked), the throughput line, the last log lines, the message and the help line. Below 20 x 5 only
// "terminal too small".
QString renderWatchScreen(const WatchSnapshot &snapshot, int cols, int rows);
// The same frame as `rows` lines of exactly `cols` cells, without cursor and clear sequences.
QStringList watchScreenLines(const WatchSnapshot &snapshot, int cols, int rows);

inline constexpr int kMinWatchCols = 20;
inline constexpr int kMinWatchRows = 5;
inline constexpr int kSideBySideCols = 100; // from this width the charts share their rows

// The loss chart's smoothing weights, in the order a key cycles through them (0: off).
inline constexpr double kWatchSmoothings[] = {0.0, 0.6, 0.9, 0.99};
// The next larger weight of that cycle; after the last, off.
double nextWatchSmoothing(double current);

} // namespace torchdeck::term
