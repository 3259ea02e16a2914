#pragma once

#include "core/metrics/runseries.h"

#include <QObject>
#include <QPointer>
#include <memory>

namespace torchdeck {

class RunSeriesCache;

// The live side of one run's series, for the fronts: row-level change signals come out. It shows a run of
// the session's RunSeriesCache (follow: no copy, the cache keeps it current) or a series of its own that
// events go into (ingest, replace: tests and benchmarks). The run view's charts listen to it.
class RunMetrics : public QObject {
    Q_OBJECT
public:
    explicit RunMetrics(QObject *parent = nullptr);

    const RunSeries &series() const { return m_followed ? *m_followed : m_own; }
    const MetricSeries &series(SeriesKind kind) const { return series().series(kind); }

    // The cache's series of this run (empty `runId`: none); false when the store cannot be read (shown empty).
    bool follow(RunSeriesCache *cache, const QString &runId);
    // Attempt: which job of the run (0-based) these events came from. Into a series of its own only.
    void ingest(const QList<MetricEvent> &events, int attempt = 0);
    void ingest(const MetricEvent &event, int attempt = 0);
    // Replace everything with a series of its own (no longer following a cache).
    void replace(const RunSeries &series);

signals:
    // Emitted after the rows exist. kind is a SeriesKind; rows are inclusive.
    void pointsAppended(torchdeck::SeriesKind kind, qsizetype first, qsizetype last);
    void pointsDiscarded(torchdeck::SeriesKind kind, qsizetype first, qsizetype last);
    void extrasChanged();    // a named series of the run's own logger (RunSeries::extraNames)
    void resourcesChanged(); // a sample of what its job uses (RunSeries::resourceNames)
    void checkpointsChanged();
    void infoChanged();
    void aboutToReplace();
    void replaced();

private:
    void announce(const RunSeriesChanges &changes);
    void announceReplaced();
    void unfollow();

    RunSeries m_own;
    QPointer<RunSeriesCache> m_cache;
    QString m_runId;                             // followed in m_cache
    std::shared_ptr<const RunSeries> m_followed; // null: m_own is shown
    QList<QMetaObject::Connection> m_cacheConnections;
};

} // namespace torchdeck
