#pragma once

#include "core/jobs/jobspec.h"
#include "core/jobs/walltimebudget.h"
#include "core/metrics/runseries.h"

namespace torchdeck {

class RunStore;

// Shared by the fronts (pure: core types only). The wall-time budget of a spec from a run's measured epochs,
// steps and checkpoint saves.
WallTimeBudget budgetFromSeries(const JobSpec &spec, const RunSeries &series);

// While the run's job runs: when its next checkpoint is due against the job's warning signal, at `now`.
CheckpointOutlook outlookFromSeries(const JobSpec &spec, const RunSeries &series, double now);

// Before a submission: the budget measured on the newest earlier run of the same cluster that trained the
// same model on the same data with the same batch size and ranks; unknown when there is none.
WallTimeBudget budgetFromEarlierRun(RunStore &store, const QString &cluster, const JobSpec &spec);

} // namespace torchdeck
