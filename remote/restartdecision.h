#pragma once

#include "core/jobs/jobspec.h"
#include "core/metrics/runseries.h"
#include "core/store/runrecord.h"

namespace torchdeck::remote {

// What to do about a run whose latest job has ended (issue 7's requeue from outside).
struct RestartDecision {
    bool restart = false;
    QString reason; // why it restarts, or why not: shown with the run
};

// Restart from the latest checkpoint when the job stopped to be requeued (the trainer's exit code 75 after
// a signal, read from its stop event since PBS wrappers report no exit status, or the job's), or when the
// scheduler ended it by wall time or preemption; never after a real error, never past spec.maxRestarts
// restarts, never for a custom command or a spec that requeues itself in-job.
// `attempts`: the run's jobs so far, latest last; `info`: what the run's metrics said.
RestartDecision decideRestart(const JobSpec &spec, const QList<JobRecord> &attempts, const RunInfo &info);

} // namespace torchdeck::remote
