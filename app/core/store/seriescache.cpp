#include "core/store/seriescache.h"

#include "core/store/runstore.h"

namespace torchdeck {

const RunSeries *RunSeriesCache::series(const QString &runId)
{
    auto it = m_series.find(runId);
    if (it == m_series.end()) {
        const StoreResult<RunSeries> stored = m_store->runSeries(runId);
        if (!stored.ok())
            return nullptr;
        it = m_series.insert(runId, stored.value);
    }
    return &it.value();
}

void RunSeriesCache::apply(const QString &runId, int attempt, const QList<MetricEvent> &events)
{
    if (const auto cached = m_series.find(runId); cached != m_series.end() && !events.isEmpty())
        cached->apply(events, attempt);
}

} // namespace torchdeck
