#pragma once

#include "core/jobs/jobtrace.h"
#include "core/scheduler/jobstate.h"

#include <optional>

namespace torchdeck {

// How a job ended that the scheduler no longer lists, neither in its queue nor in its history (it left the
// controller's memory MinJobAge after it ended, and the cluster keeps no accounting).
struct ForgottenJobEnd {
    JobState state = JobState::Failed;
    int exitCode = -1;
    QString message; // what the run says of it
};

// From the job's own record (core/jobs/jobtrace.h): its end and exit code (0: completed, else failed), or failed
// with no code when it started and never wrote an end (killed without a chance to: the wall time's KILL, a node
// lost). None when the record says nothing of this job: it never started, or its script kept no record.
std::optional<ForgottenJobEnd> forgottenJobEnd(const JobTrace &trace, const QString &jobId);

} // namespace torchdeck
