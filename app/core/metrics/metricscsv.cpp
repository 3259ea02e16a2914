#include "core/metrics/metricscsv.h"

#include "core/metrics/runseries.h"

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
    return QStringLiteral(
        "attempt,event,time,epoch,step,loss,lr,samples_per_s,val_loss,val_accuracy,seconds,discarded");
}

QString metricsCsvRow(int attempt, const MetricEvent &e, bool discarded)
{
    if (e.kind != MetricEventKind::Step && e.kind != MetricEventKind::Epoch)
        return {};
    return QStringList{QString::number(attempt), metricEventName(e.kind),
                       csvNumber(e.time),        csvCount(e.epoch),
                       csvCount(e.step),         csvNumber(e.loss),
                       csvNumber(e.lr),          csvNumber(e.samplesPerSecond),
                       csvNumber(e.valLoss),     csvNumber(e.valAccuracy),
                       csvNumber(e.seconds),     discarded ? QStringLiteral("1") : QStringLiteral("0")}
        .join(u',');
}

QList<bool> supersededEvents(const QList<StoredMetricEvent> &events)
{
    // Replays the events through RunSeries and maps the rows of the loss-by-step and loss-by-epoch curves
    // back to the events that added them.
    QList<bool> superseded(events.size(), false);
    RunSeries series;
    QList<qsizetype> stepOwner;
    QList<qsizetype> epochOwner;
    for (qsizetype i = 0; i < events.size(); ++i) {
        const RunSeriesChanges changes = series.apply(events.at(i).event, events.at(i).attempt);
        const auto own = [&](SeriesKind kind, QList<qsizetype> &owner) {
            const MetricSeries::Rows &appended = changes.appended[static_cast<int>(kind)];
            if (!appended.isEmpty())
                owner.append(i);
            const MetricSeries::Rows &gone = changes.discarded[static_cast<int>(kind)];
            for (qsizetype row = gone.first; !gone.isEmpty() && row <= gone.last; ++row) {
                if (row < owner.size() && series.series(kind).isDiscarded(row))
                    superseded[owner.at(row)] = true;
            }
        };
        own(SeriesKind::TrainLoss, stepOwner);
        own(SeriesKind::EpochTrainLoss, epochOwner);
    }
    return superseded;
}

QString metricsCsv(const QList<StoredMetricEvent> &events)
{
    const QList<bool> superseded = supersededEvents(events);
    QString text = metricsCsvHeader() + u'\n';
    for (qsizetype i = 0; i < events.size(); ++i) {
        const QString row = metricsCsvRow(events.at(i).attempt, events.at(i).event, superseded.at(i));
        if (!row.isEmpty())
            text += row + u'\n';
    }
    return text;
}

} // namespace torchdeck
