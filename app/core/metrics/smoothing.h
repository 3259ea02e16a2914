#pragma once

#include "core/metrics/metricseries.h"

#include <QList>
#include <QPointF>

namespace torchdeck {

// TensorBoard's scalar smoothing: an exponential moving average whose start is debiased (divided by
// 1 - weight^n, as Adam's moments), so the first points are not pulled towards zero. weight 0 is the raw
// curve; TensorBoard's slider goes to 0.999, ours to 0.99. Non-finite values pass through and do not enter
// the average; a constant curve stays exactly constant.
QList<QPointF> smoothed(const QList<QPointF> &points, double weight);
double clampSmoothingWeight(double weight); // to [0, 0.99]
// A series' visible curve smoothed, as a series of its own that the charts decimate like any other.
MetricSeries smoothedSeries(const MetricSeries &raw, double weight);

} // namespace torchdeck
