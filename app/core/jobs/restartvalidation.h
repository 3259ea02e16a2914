#pragma once

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobspec.h"
#include "core/jobs/jobspecvalidation.h"

namespace torchdeck {

// The checks of the checkpoint signal and the requeue settings (part of validateJobSpec).
QList<JobSpecError> restartProblems(const JobSpec &spec, const ClusterCaps &caps);

// The most jobs `submit --chain` may send up front for a run that may restart `maxRestarts` times: the
// first and one per restart.
constexpr int maxChainJobs(int maxRestarts)
{
    return 1 + maxRestarts;
}

} // namespace torchdeck
