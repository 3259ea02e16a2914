#pragma once

#include "core/metrics/runseries.h"

#include <QHash>

namespace torchdeck {

class RunStore;

// The one in-memory copy of each run's series a session keeps: read from the store on first use, then kept
// current with the events as they arrive, so a front redraws without reading the store again.
class RunSeriesCache {
public:
    explicit RunSeriesCache(RunStore *store)
        : m_store(store)
    {
    }

    // Null when the store cannot be read.
    const RunSeries *series(const QString &runId);
    bool contains(const QString &runId) const { return m_series.contains(runId); }
    // Events just stored for the run: applied when its series is cached (else the store has them already).
    void apply(const QString &runId, int attempt, const QList<MetricEvent> &events);
    // Read again from the store on next use (a new attempt changed what is discarded).
    void forget(const QString &runId) { m_series.remove(runId); }

private:
    RunStore *m_store;
    QHash<QString, RunSeries> m_series;
};

} // namespace torchdeck
