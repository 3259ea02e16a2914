#include "core/store/seriescache.h"

#include "core/store/runstore.h"

namespace torchdeck {

const RunSeries *RunSeriesCache::series(const QString &runId)
{
    auto it = m_series.find(runId);
    if (it == m_series.end()) {
        Cached cached;
        const StoreResult<RunSeries> stored = m_store->runSeries(runId, &cached.end);
        if (!stored.ok())
            return nullptr;
        cached.series = stored.value;
        it = m_series.insert(runId, cached);
    }
    return &it->series;
}

void RunSeriesCache::apply(const QString &runId, int attempt, const QList<MetricEvent> &events)
{
    if (const auto cached = m_series.find(runId); cached != m_series.end() && !events.isEmpty()) {
        cached->series.apply(events, attempt);
        cached->end += events.size();
    }
}

void RunSeriesCache::apply(const QString &runId, int attempt, const QList<MetricEvent> &events, qint64 first)
{
    const auto cached = m_series.find(runId);
    if (cached == m_series.end() || events.isEmpty())
        return;
    if (first > cached->end) { // some were never seen here: the store has them all
        m_series.erase(cached);
        return;
    }
    const qint64 known = cached->end - first;
    if (known >= events.size())
        return;
    cached->series.apply(known == 0 ? events : events.mid(known), attempt);
    cached->end = first + events.size();
}

} // namespace torchdeck
