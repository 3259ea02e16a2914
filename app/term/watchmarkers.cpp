#include "term/watchmarkers.h"

#include "core/runs/attemptsegments.h"

namespace torchdeck::term {

QList<ChartMarker> attemptMarkers(const MetricSeries &series, const QList<JobRecord> &jobs,
                                  const QList<CheckpointRecord> &checkpoints)
{
    QList<ChartMarker> markers;
    for (const AttemptBoundary &boundary : attemptBoundaries(series, jobs, checkpoints))
        markers.append({boundary.x, boundary.label});
    return markers;
}

} // namespace torchdeck::term
