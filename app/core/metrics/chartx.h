#pragma once

#include "core/metrics/metricseries.h"

#include <QList>
#include <QPointF>
#include <QString>

namespace torchdeck {

// What the by-step charts put along x: the step, the epoch (steps / steps per epoch), the wall-clock time the
// step was logged, or the time since the run's first step. A run spans several jobs: relative time can close
// the gaps between them (each job goes on where the one before it stopped, one step's time later) or show them.
enum class ChartX { Step, Epoch, WallTime, RelativeTime };
QString chartXName(ChartX x); // "step", "epoch", "wall time", "relative time" (for a person)

class StepClock {
public:
    // `stepTimes`: RunSeries::stepTimes() (x: step, y: Unix seconds), its visible rows.
    StepClock(const MetricSeries &stepTimes, ChartX x, double stepsPerEpoch, bool closeGaps);

    // The x of a step on the chosen axis; NaN when it has none (no time logged near it, no steps per epoch).
    double map(double step) const;
    // A by-step curve moved onto the axis, in order; points that have no x there are left out.
    QList<QPointF> map(const QList<QPointF> &points) const;

private:
    ChartX m_x;
    double m_stepsPerEpoch;
    QList<double> m_steps; // ascending
    QList<double> m_times; // parallel: the axis' x of each logged step
};

} // namespace torchdeck
