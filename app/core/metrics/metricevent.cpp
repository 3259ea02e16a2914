#include "core/metrics/metricevent.h"

namespace torchdeck {

QString metricEventName(MetricEventKind kind)
{
    switch (kind) {
    case MetricEventKind::Start:
        return QStringLiteral("start");
    case MetricEventKind::Step:
        return QStringLiteral("step");
    case MetricEventKind::Epoch:
        return QStringLiteral("epoch");
    case MetricEventKind::Checkpoint:
        return QStringLiteral("checkpoint");
    case MetricEventKind::Stop:
        return QStringLiteral("stop");
    case MetricEventKind::Resources:
        return QStringLiteral("resources");
    }
    return {};
}

} // namespace torchdeck
