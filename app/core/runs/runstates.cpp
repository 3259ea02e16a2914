#include "core/runs/runstates.h"

#include "core/scheduler/jobstate.h"

namespace torchdeck {

bool isUnfinishedRun(const RunRecord &run)
{
    return !isFinal(jobStateFromName(run.state));
}

bool isUnfinishedJob(const JobRecord &job)
{
    return !isFinal(jobStateFromName(job.state));
}

} // namespace torchdeck
