#pragma once

#include "core/metrics/runseries.h"

#include <QHash>
#include <QObject>
#include <memory>

namespace torchdeck {

class RunStore;

// The one in-memory copy of each run's series a process keeps: read from the store on first use, then kept
// current with the events as they arrive, so a front redraws without reading the store again. What shows a
// series holds it by shared(): it stays alive (and current) while shown, and `changed` says what changed.
class RunSeriesCache : public QObject {
    Q_OBJECT
public:
    explicit RunSeriesCache(RunStore *store, QObject *parent = nullptr)
        : QObject(parent)
        , m_store(store)
    {
    }

    // Null when the store cannot be read.
    const RunSeries *series(const QString &runId);
    std::shared_ptr<const RunSeries> shared(const QString &runId);
    bool contains(const QString &runId) const { return m_series.contains(runId); }
    // Events just stored for the run: applied when its series is cached (else the store has them already).
    void apply(const QString &runId, int attempt, const QList<MetricEvent> &events);
    // The same, told by another process that stored them from position `first` on (RunStore::metricsEnd before
    // it stored them): what the cached series read from the store already is skipped, and a gap (events missed)
    // reads the series again.
    void apply(const QString &runId, int attempt, const QList<MetricEvent> &events, qint64 first);
    // Read again from the store on next use (a new attempt changed what is discarded).
    void forget(const QString &runId);

signals:
    // The cached series changed in place (rows appended or discarded, extras, checkpoints, info).
    void changed(const QString &runId, const torchdeck::RunSeriesChanges &changes);
    // No longer cached: what shows it takes shared() again, read anew from the store.
    void dropped(const QString &runId);

private:
    struct Cached {
        RunSeries series;
        qint64 end = 0; // the store's position after the events the series holds
    };
    void applied(const QString &runId, const RunSeriesChanges &changes);

    RunStore *m_store;
    QHash<QString, std::shared_ptr<Cached>> m_series; // shared: a front may hold one while it is dropped here
};

} // namespace torchdeck
