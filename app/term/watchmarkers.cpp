#include "term/watchmarkers.h"

#include "core/runs/attemptsegments.h"
#include "term/termtr.h"

#include <cmath>

namespace torchdeck::term {

QList<ChartMarker> attemptMarkers(const MetricSeries &series, const QList<JobRecord> &jobs,
                                  const QList<CheckpointRecord> &checkpoints)
{
    QList<ChartMarker> markers;
    if (jobs.size() < 2)
        return markers;
    const QList<AttemptSegment> segments = attemptSegments(series, jobs, checkpoints);
    for (qsizetype i = 1; i < segments.size(); ++i) {
        const AttemptSegment &ended = segments.at(i - 1);
        if (!std::isnan(segments.at(i).firstX)) // an attempt with no point yet has no place on the curve
            markers.append({segments.at(i).firstX, Tr::tr("job %1: %2").arg(ended.jobId, attemptEndName(ended.end))});
    }
    return markers;
}

} // namespace torchdeck::term
