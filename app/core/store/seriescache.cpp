#include "core/store/seriescache.h"

#include "core/store/runstore.h"

namespace torchdeck {

std::shared_ptr<const RunSeries> RunSeriesCache::shared(const QString &runId)
{
    auto it = m_series.find(runId);
    if (it == m_series.end()) {
        auto cached = std::make_shared<Cached>();
        const StoreResult<RunSeries> stored = m_store->runSeries(runId, &cached->end);
        if (!stored.ok())
            return nullptr;
        cached->series = stored.value;
        it = m_series.insert(runId, std::move(cached));
    }
    // Aliasing: the series, kept alive by its entry.
    return {*it, &(*it)->series};
}

const RunSeries *RunSeriesCache::series(const QString &runId)
{
    return shared(runId).get();
}

void RunSeriesCache::forget(const QString &runId)
{
    if (m_series.remove(runId) > 0)
        emit dropped(runId);
}

void RunSeriesCache::applied(const QString &runId, const RunSeriesChanges &changes)
{
    if (!changes.isEmpty())
        emit changed(runId, changes);
}

void RunSeriesCache::apply(const QString &runId, int attempt, const QList<MetricEvent> &events)
{
    const auto cached = m_series.constFind(runId);
    if (cached == m_series.cend() || events.isEmpty())
        return;
    Cached &entry = **cached;
    const RunSeriesChanges changes = entry.series.apply(events, attempt);
    entry.end += events.size();
    applied(runId, changes);
}

void RunSeriesCache::apply(const QString &runId, int attempt, const QList<MetricEvent> &events, qint64 first)
{
    const auto cached = m_series.constFind(runId);
    if (cached == m_series.cend() || events.isEmpty())
        return;
    Cached &entry = **cached;
    if (first > entry.end) // some were never seen here: the store has them all
        return forget(runId);
    const qint64 known = entry.end - first;
    if (known >= events.size())
        return;
    const RunSeriesChanges changes = entry.series.apply(known == 0 ? events : events.mid(known), attempt);
    entry.end = first + events.size();
    applied(runId, changes);
}

} // namespace torchdeck
