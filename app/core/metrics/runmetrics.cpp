#include "core/metrics/runmetrics.h"

namespace torchdeck {

RunMetrics::RunMetrics(QObject *parent)
    : QObject(parent)
{
}

void RunMetrics::ingest(const QList<MetricEvent> &events, int attempt)
{
    // One batch, one signal per series: a chart redraws once per chunk of the tail, not once per line.
    announce(m_series.apply(events, attempt));
}

void RunMetrics::ingest(const MetricEvent &event, int attempt)
{
    announce(m_series.apply(event, attempt));
}

void RunMetrics::replace(const RunSeries &series)
{
    emit aboutToReplace();
    m_series = series;
    emit replaced();
    emit checkpointsChanged();
    emit infoChanged();
}

void RunMetrics::announce(const RunSeriesChanges &changes)
{
    for (int k = 0; k < kSeriesKindCount; ++k) {
        const auto kind = static_cast<SeriesKind>(k);
        // Discards first: a model flags the old rows before it shows the points that replace them.
        if (!changes.discarded[k].isEmpty())
            emit pointsDiscarded(kind, changes.discarded[k].first, changes.discarded[k].last);
        if (!changes.appended[k].isEmpty())
            emit pointsAppended(kind, changes.appended[k].first, changes.appended[k].last);
    }
    if (changes.extras)
        emit extrasChanged();
    if (changes.checkpoints)
        emit checkpointsChanged();
    if (changes.info)
        emit infoChanged();
}

} // namespace torchdeck
