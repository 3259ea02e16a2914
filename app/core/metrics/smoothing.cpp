#include "core/metrics/smoothing.h"

#include <algorithm>
#include <cmath>

namespace torchdeck {

double clampSmoothingWeight(double weight)
{
    return std::isfinite(weight) ? std::clamp(weight, 0.0, 0.99) : 0.0;
}

QList<QPointF> smoothed(const QList<QPointF> &points, double weight)
{
    weight = clampSmoothingWeight(weight);
    if (weight == 0)
        return points;
    QList<QPointF> result;
    result.reserve(points.size());
    double average = 0;
    int counted = 0;
    // A constant curve would otherwise come out with rounding noise in its last digits.
    const bool constant = std::all_of(points.cbegin(), points.cend(), [&](const QPointF &point) {
        return !std::isfinite(point.y()) || point.y() == points.constFirst().y();
    });
    for (const QPointF &point : points) {
        if (!std::isfinite(point.y()) || constant) {
            result.append(point);
            continue;
        }
        average = average * weight + (1 - weight) * point.y();
        ++counted;
        result.append({point.x(), average / (1 - std::pow(weight, counted))});
    }
    return result;
}

MetricSeries smoothedSeries(const MetricSeries &raw, double weight)
{
    MetricSeries result;
    const QList<QPointF> points = smoothed(raw.visiblePoints(), weight);
    result.reserve(points.size());
    for (const QPointF &point : points)
        result.append(point.x(), point.y(), 0);
    return result;
}

} // namespace torchdeck
