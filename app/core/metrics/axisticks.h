#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck {

// Tick marks a person reads at a glance: on round numbers (1, 2 or 5 x 10^k) for a linear axis, on decades
// for a logarithmic one, labelled in one format across the axis ("0.25", "0.50"; "8k", "12k"; "1e-4").
struct AxisTicks {
    QList<double> values; // ascending, inside [min, max]
    double step = 0;      // linear: the distance between ticks; log: 0
    QStringList labels;   // one per value
};

// Linear: at most `maxTicks` (>= 2) round values covering [min, max]. A flat range (min == max) is widened
// around its value; non-finite bounds give no ticks.
AxisTicks linearTicks(double min, double max, int maxTicks);

// Time along x: ticks on round durations (1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h;
// days), labelled as durations ("30s", "1h30m") or, for Unix seconds, as the local clock time ("14:05",
// "14:05:30" below a minute's step, "26 Nov 14:05" over more than a day).
AxisTicks durationTicks(double min, double max, int maxTicks);
AxisTicks clockTicks(double min, double max, int maxTicks);

// A value in its axis' format: an SI suffix (k, M, G, T) once the axis reaches 10 000, decimals from the
// step, exponent notation below 10^-3. The hover readout uses it too, with the axis' step.
QString tickLabel(double value, double step, double axisMagnitude);

// The round step of linearTicks: 1, 2 or 5 x 10^k, at least `raw`.
double roundStep(double raw);

} // namespace torchdeck
