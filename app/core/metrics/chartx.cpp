#include "core/metrics/chartx.h"

#include "core/coretr.h"
#include "core/metrics/metricevent.h"

#include <algorithm>

namespace torchdeck {

QString chartXName(ChartX x)
{
    switch (x) {
    case ChartX::Step:
        return core::Tr::tr("step");
    case ChartX::Epoch:
        return core::Tr::tr("epoch");
    case ChartX::WallTime:
        return core::Tr::tr("wall time");
    case ChartX::RelativeTime:
        return core::Tr::tr("relative time");
    }
    return {};
}

StepClock::StepClock(const MetricSeries &stepTimes, ChartX x, double stepsPerEpoch, bool closeGaps)
    : m_x(x)
    , m_stepsPerEpoch(stepsPerEpoch)
{
    if (x != ChartX::WallTime && x != ChartX::RelativeTime)
        return;
    // The visible rows are in step order (MetricSeries keeps its visible curve x-increasing).
    double origin = kNoValue;
    double removed = 0; // the gaps between jobs closed so far
    double lastTime = kNoValue;
    double lastInterval = 0; // between the previous job's last two steps
    int lastAttempt = -1;
    for (qsizetype row = 0; row < stepTimes.size(); ++row) {
        if (stepTimes.isDiscarded(row))
            continue;
        const double time = stepTimes.y(row);
        if (std::isnan(origin))
            origin = time;
        const bool newJob = lastAttempt >= 0 && stepTimes.attempt(row) != lastAttempt;
        // The job goes on where the one before it stopped, one step's time later (the queue's wait left out).
        const double step = std::max(lastInterval, 1e-3);
        if (closeGaps && newJob && time - lastTime > step)
            removed += time - lastTime - step;
        if (!newJob && !std::isnan(lastTime))
            lastInterval = time - lastTime;
        lastTime = time;
        lastAttempt = stepTimes.attempt(row);
        m_steps.append(stepTimes.x(row));
        m_times.append(x == ChartX::WallTime ? time : time - origin - removed);
    }
}

double StepClock::map(double step) const
{
    switch (m_x) {
    case ChartX::Step:
        return step;
    case ChartX::Epoch:
        return m_stepsPerEpoch > 0 ? step / m_stepsPerEpoch : kNoValue;
    case ChartX::WallTime:
    case ChartX::RelativeTime:
        break;
    }
    const auto at = std::lower_bound(m_steps.cbegin(), m_steps.cend(), step);
    if (at == m_steps.cend())
        return kNoValue;
    const qsizetype i = at - m_steps.cbegin();
    if (*at == step)
        return m_times.at(i);
    if (i == 0)
        return kNoValue;
    // Between two logged steps (a series logged more often than the times): in proportion.
    const double fraction = (step - m_steps.at(i - 1)) / (m_steps.at(i) - m_steps.at(i - 1));
    return m_times.at(i - 1) + fraction * (m_times.at(i) - m_times.at(i - 1));
}

QList<QPointF> StepClock::map(const QList<QPointF> &points) const
{
    QList<QPointF> mapped;
    mapped.reserve(points.size());
    for (const QPointF &point : points) {
        const double x = map(point.x());
        if (!std::isnan(x))
            mapped.append({x, point.y()});
    }
    return mapped;
}

} // namespace torchdeck
