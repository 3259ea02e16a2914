#include "core/metrics/metricscsv.h"

#include <QStringList>

#include <cmath>

namespace torchdeck {

namespace {
QString csvNumber(double value)
{
    return std::isfinite(value) ? QString::number(value, 'g', 10) : QString();
}

QString csvCount(qint64 value)
{
    return value >= 0 ? QString::number(value) : QString();
}
} // namespace

QString metricsCsvHeader()
{
    return QStringLiteral("attempt,event,time,epoch,step,loss,lr,samples_per_s,val_loss,val_accuracy,seconds");
}

QString metricsCsvRow(int attempt, const MetricEvent &e)
{
    if (e.kind != MetricEventKind::Step && e.kind != MetricEventKind::Epoch)
        return {};
    return QStringList{QString::number(attempt), metricEventName(e.kind), csvNumber(e.time), csvCount(e.epoch),
                       csvCount(e.step), csvNumber(e.loss), csvNumber(e.lr), csvNumber(e.samplesPerSecond),
                       csvNumber(e.valLoss), csvNumber(e.valAccuracy), csvNumber(e.seconds)}
        .join(u',');
}

} // namespace torchdeck
