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
    // The same, told by another process that stored them from position `first` on (RunStore::metricsEnd before
    // it stored them): what the cached series read from the store already is skipped, and a gap (events missed)
    // reads the series again.
    void apply(const QString &runId, int attempt, const QList<MetricEvent> &events, qint64 first);
    // Read again from the store on next use (a new attempt changed what is discarded).
    void forget(const QString &runId) { m_series.remove(runId); }

private:
    struct Cached {
        RunSeries series;
        qint64 end = 0; // the store's position after the events the series holds
    };
    RunStore *m_store;
    QHash<QString, Cached> m_series;
};

} // namespace torchdeck
