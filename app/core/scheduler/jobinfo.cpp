#include "core/scheduler/jobinfo.h"

namespace torchdeck {

const JobInfo *JobListResult::find(const QString &id) const
{
    for (const JobInfo &job : jobs) {
        if (job.id == id)
            return &job;
    }
    return nullptr;
}

} // namespace torchdeck
