#pragma once

#include "core/store/runrecord.h"

namespace torchdeck {

// Whether a stored run, or one job of it, has not ended (its state is not final).
bool isUnfinishedRun(const RunRecord &run);
bool isUnfinishedJob(const JobRecord &job);

} // namespace torchdeck
