#pragma once

#include "core/runs/launchrequest.h"
#include "core/store/runrecord.h"

#include <optional>

namespace torchdeck {

// The records a launch writes: the run and the job of the attempt it submits.
struct LaunchRecords {
    RunRecord run;
    JobRecord job;
};

// What a launch claims before it submits (RunStore::claimAttempt): the stored run, if any, with the spec, the
// script and the epochs of this submission and its message cleared; the attempt's job pending, with no id yet,
// the checkpoint it resumes from (none unless one was chosen) and the metrics file it will write.
LaunchRecords claimedLaunchRecords(const LaunchRequest &request, const SubmissionScript &rendered,
                                   const std::optional<RunRecord> &stored);

// The claimed job once the scheduler accepted it as `jobId`: its id, when, and its logs' paths.
JobRecord submittedJobRecord(JobRecord claimed, const JobSpec &attemptSpec, const QString &jobId,
                             const QDateTime &submitted);

} // namespace torchdeck
