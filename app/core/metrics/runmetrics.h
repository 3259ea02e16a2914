#pragma once

#include "core/metrics/runseries.h"

#include <QObject>

namespace torchdeck {

// The live side of one run's series, for the fronts: events go in (on the GUI thread, by queued signal
// from the session), row-level change signals come out. The run view's charts listen to it.
class RunMetrics : public QObject {
    Q_OBJECT
public:
    explicit RunMetrics(QObject *parent = nullptr);

    const RunSeries &series() const { return m_series; }
    const MetricSeries &series(SeriesKind kind) const { return m_series.series(kind); }

    // Attempt: which job of the run (0-based) these events came from.
    void ingest(const QList<MetricEvent> &events, int attempt = 0);
    void ingest(const MetricEvent &event, int attempt = 0);
    // Replace everything, e.g. with the series rebuilt from the run store.
    void replace(const RunSeries &series);

signals:
    // Emitted after the rows exist. kind is a SeriesKind; rows are inclusive.
    void pointsAppended(torchdeck::SeriesKind kind, qsizetype first, qsizetype last);
    void pointsDiscarded(torchdeck::SeriesKind kind, qsizetype first, qsizetype last);
    void extrasChanged(); // a named series of the run's own logger (RunSeries::extraNames)
    void checkpointsChanged();
    void infoChanged();
    void aboutToReplace();
    void replaced();

private:
    void announce(const RunSeriesChanges &changes);

    RunSeries m_series;
};

} // namespace torchdeck
