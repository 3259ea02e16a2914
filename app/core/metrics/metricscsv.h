#pragma once

#include "core/metrics/metricevent.h"

#include <QString>

namespace torchdeck {

// The CSV of a run's metrics (`torchdeck metrics --csv`, the run view's "Export CSV"): one row per step or
// epoch event in arrival order, with the attempt it came from; unknown values are empty cells.
QString metricsCsvHeader(); // attempt,event,time,epoch,step,loss,lr,samples_per_s,val_loss,val_accuracy,seconds
// The row of a step or epoch event, without a line end; empty for the other events.
QString metricsCsvRow(int attempt, const MetricEvent &event);

} // namespace torchdeck
