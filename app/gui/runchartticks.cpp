#include "gui/runchartticks.h"

#include "core/metrics/axisticks.h"

#include <QCategoryAxis>
#include <QChart>
#include <QPointer>
#include <algorithm>
#include <cmath>

namespace torchdeck {

namespace {

constexpr double kPixelsPerHorizontalTick = 90; // room for "10.5k" and a gap
constexpr double kPixelsPerVerticalTick = 30;
constexpr char kLabelsProperty[] = "tickLabels";

void retick(QChart *chart, QCategoryAxis *axis, bool wholeNumbers)
{
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const double length = horizontal ? chart->plotArea().width() : chart->plotArea().height();
    const int maxTicks =
        std::clamp(int(length / (horizontal ? kPixelsPerHorizontalTick : kPixelsPerVerticalTick)), 2, 10);
    const auto labels = TickLabels(axis->property(kLabelsProperty).toInt());
    AxisTicks ticks = labels == TickLabels::Durations    ? durationTicks(axis->min(), axis->max(), maxTicks)
                      : labels == TickLabels::ClockTimes ? clockTicks(axis->min(), axis->max(), maxTicks)
                                                         : linearTicks(axis->min(), axis->max(), maxTicks);
    if (wholeNumbers && ticks.step < 1) {
        ticks = {};
        for (double value = std::ceil(axis->min()); value <= axis->max() && ticks.values.size() < 100; ++value) {
            ticks.values.append(value);
            ticks.labels.append(QString::number(value, 'f', 0));
        }
    }
    // Categories end on the ticks. The first starts a whole step before its tick, below the axis' minimum:
    // Qt Charts gives a label no more room than its category, and a sliver would hide the first label.
    const double start =
        ticks.values.isEmpty() ? axis->min() : ticks.values.constFirst() - std::max(ticks.step, 1e-300);
    if (axis->categoriesLabels() == ticks.labels && axis->startValue() == start)
        return; // unchanged: no relayout
    for (const QString &label : axis->categoriesLabels())
        axis->remove(label);
    axis->setStartValue(start);
    for (qsizetype i = 0; i < ticks.values.size(); ++i)
        axis->append(ticks.labels.at(i), ticks.values.at(i));
}

} // namespace

void setTickLabels(QValueAxis *axis, TickLabels labels)
{
    axis->setProperty(kLabelsProperty, int(labels));
    // A range change reticks it: set the same range once more through the queued update.
    emit axis->rangeChanged(axis->min(), axis->max());
}

QValueAxis *makeTickedAxis(QChart *chart, bool wholeNumbers)
{
    auto *axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    const QPointer<QCategoryAxis> guarded(axis);
    const auto update = [chart, guarded, wholeNumbers] {
        if (guarded && chart->axes().contains(guarded)) // once added: orientation known
            retick(chart, guarded, wholeNumbers);
    };
    // Queued: the chart lays the axis out for the new range first; categories changed inside its range change
    // were drawn against the old one.
    QObject::connect(axis, &QValueAxis::rangeChanged, axis, update, Qt::QueuedConnection);
    QObject::connect(chart, &QChart::plotAreaChanged, axis, update, Qt::QueuedConnection);
    return axis;
}

} // namespace torchdeck
