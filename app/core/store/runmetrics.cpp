#include "core/store/runmetrics.h"

#include "core/store/seriescache.h"

namespace torchdeck {

RunMetrics::RunMetrics(QObject *parent)
    : QObject(parent)
{
}

bool RunMetrics::follow(RunSeriesCache *cache, const QString &runId)
{
    emit aboutToReplace();
    unfollow();
    m_own.clear();
    bool read = true;
    if (cache && !runId.isEmpty()) {
        m_cache = cache;
        m_runId = runId;
        m_followed = cache->shared(runId);
        read = m_followed != nullptr;
        m_cacheConnections.append(connect(cache, &RunSeriesCache::changed, this,
                                          [this](const QString &changedRun, const RunSeriesChanges &changes) {
                                              if (changedRun == m_runId)
                                                  announce(changes);
                                          }));
        // Dropped (a gap, a new attempt): the cache reads it again from the store, whole.
        m_cacheConnections.append(connect(cache, &RunSeriesCache::dropped, this, [this](const QString &droppedRun) {
            if (droppedRun != m_runId)
                return;
            emit aboutToReplace();
            m_followed = m_cache ? m_cache->shared(m_runId) : nullptr;
            announceReplaced();
        }));
    }
    announceReplaced();
    return read;
}

void RunMetrics::unfollow()
{
    for (const QMetaObject::Connection &connection : std::as_const(m_cacheConnections))
        disconnect(connection);
    m_cacheConnections.clear();
    m_cache = nullptr;
    m_runId.clear();
    m_followed.reset();
}

void RunMetrics::ingest(const QList<MetricEvent> &events, int attempt)
{
    // One batch, one signal per series: a chart redraws once per chunk of the tail, not once per line.
    Q_ASSERT(!m_followed);
    announce(m_own.apply(events, attempt));
}

void RunMetrics::ingest(const MetricEvent &event, int attempt)
{
    Q_ASSERT(!m_followed);
    announce(m_own.apply(event, attempt));
}

void RunMetrics::replace(const RunSeries &series)
{
    emit aboutToReplace();
    unfollow();
    m_own = series;
    announceReplaced();
}

void RunMetrics::announceReplaced()
{
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
    if (changes.resources)
        emit resourcesChanged();
    if (changes.checkpoints)
        emit checkpointsChanged();
    if (changes.info)
        emit infoChanged();
}

} // namespace torchdeck
