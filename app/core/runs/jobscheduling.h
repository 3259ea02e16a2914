#pragma once

#include "core/jobs/jobspec.h"
#include "core/scheduler/jobinfo.h"
#include "core/store/runrecord.h"

#include <QString>

namespace torchdeck {

// What a poll says of a job beyond its state, as the store keeps it: Slurm's "None" and "(null)" are nothing,
// the expected start only while the job waits, times in UTC.
JobScheduling schedulingOf(const JobInfo &info);

// Why a waiting job waits, in words, with the scheduler's own code: "higher-priority jobs are ahead of it
// (Priority)"; a PBS comment as it is. Empty when the job does not wait or the scheduler said nothing.
QString waitReason(const JobRecord &job);

// How an ended job ended, when not simply completed: "out of memory", "node failure", "wall time",
// "preempted", "cancelled", "exit code N". Empty while it runs or waits, and for a clean end. `requeueExitCode`: the
// run's code for "checkpointed, restart me" (requeueExitCodeOf).
QString endCause(const JobRecord &job, int requeueExitCode = kTrainerRequeueExitCode);

// One line on a job for the fronts' "why" column: why it waits and when it may start ("BeginTime; expected
// start 2026-11-26 17:30", local time), or how it ended (endCause). Empty when there is nothing to say.
QString jobWhy(const JobRecord &job, int requeueExitCode = kTrainerRequeueExitCode);

// The exit code with which a run's jobs ask to be restarted: its spec's (the trainer's 75 unless a custom command
// says otherwise).
int requeueExitCodeOf(const RunRecord &run);

// Whether the scheduler has kept a job waiting longer than `limitSeconds` (0: never) since it was submitted,
// for a reason of the scheduler's: not a start time, a hold or a dependency its user asked for (a chain's
// later attempts wait for the one before by design).
bool waitedPastLimit(const JobRecord &job, const QDateTime &now, int limitSeconds);

// Whether a restart (an attempt after the first) has waited `moveAfterSeconds` (0: never) since it was submitted,
// for any reason but a dependency (a chain's attempt waits for the one before), so that the agent may move it to
// another cluster (--move-after). A hold counts: a move holds the job while it copies, and an agent stopped then
// finds it so.
bool restartWaitedToMove(const JobRecord &job, const QDateTime &now, int moveAfterSeconds);

} // namespace torchdeck
