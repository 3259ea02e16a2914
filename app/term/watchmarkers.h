#pragma once

#include "core/metrics/metricseries.h"
#include "core/store/runrecord.h"
#include "term/render/linechart.h"

#include <QList>

namespace torchdeck::term {

// Where each attempt after the first began on a series, named after the job that ended before it and why
// ("job 101: wall time"), as the run view's boundaries; none for a run of one job.
QList<ChartMarker> attemptMarkers(const MetricSeries &series, const QList<JobRecord> &jobs,
                                  const QList<CheckpointRecord> &checkpoints);

} // namespace torchdeck::term
