#pragma once

class QChart;
class QValueAxis;

namespace torchdeck {

// A linear axis whose ticks sit on round numbers (core/metrics/axisticks.h: 1, 2, 5 x 10^k, SI suffixes),
// recomputed whenever its range or the plot area changes (zoom, pan, a resize, new points). A QCategoryAxis
// with a label on each tick value: QValueAxis can only put printf-formatted labels on evenly split ranges,
// which fall on data values. `wholeNumbers`: never a step below 1 (epochs).
// Part of the Qt Charts corner of the GUI (see runcharts.h).
QValueAxis *makeTickedAxis(QChart *chart, bool wholeNumbers = false);

// What the ticks of such an axis say: numbers, durations ("1h30m"), or Unix seconds as local clock times.
enum class TickLabels { Numbers, Durations, ClockTimes };
void setTickLabels(QValueAxis *axis, TickLabels labels);

} // namespace torchdeck
