#pragma once

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobspec.h"
#include "core/jobs/jobspecvalidation.h"

namespace torchdeck {

// The checks of the checkpoint signal and the requeue settings (part of validateJobSpec).
QList<JobSpecError> restartProblems(const JobSpec &spec, const ClusterCaps &caps);

} // namespace torchdeck
