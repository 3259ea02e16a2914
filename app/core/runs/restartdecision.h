#pragma once

#include "core/jobs/jobspec.h"
#include "core/metrics/runseries.h"
#include "core/scheduler/jobinfo.h"
#include "core/store/runrecord.h"

#include <QHash>

namespace torchdeck {

// What to do about a run whose latest job has ended (issue 7's requeue from outside).
struct RestartDecision {
    bool restart = false;
    QString reason; // why it restarts, or why not: shown with the run
};

// Restart from the latest checkpoint when the job stopped to be requeued (the trainer's exit code 75 after
// a signal, read from its stop event since PBS wrappers report no exit status, or the job's), or when the
// scheduler ended it by wall time or preemption; never after a real error, never past spec.maxRestarts
// restarts (a job's own in-job requeues included). A custom command writes no stop event: its job's exit
// code says whether it asked to be requeued. A spec that requeues itself in-job is restarted from here only
// when its job ended all the same (the script's `scontrol requeue` failed, as where a container has no
// scheduler commands, or the wall time killed it first).
// `attempts`: the run's jobs so far, latest last; `info`: what the run's metrics said; `latest`: what the
// scheduler said of the latest job when it ended (its run time tells a wall-time warning from another
// signal).
RestartDecision decideRestart(const JobSpec &spec, const QList<JobRecord> &attempts, const RunInfo &info,
                              const JobInfo &latest = {});

// The restarts a run has had, counted against its spec's limit, since the user last resumed it: the agent's own
// (JobRecord::origin), and the times a job requeued itself: the trainer's start events in its metrics (`info`), or for
// the latest job what the scheduler said of it (`latest`; unknown counts none), whichever is more.
int restartsUsed(const QList<JobRecord> &attempts, const JobInfo &latest = {}, const RunInfo &info = {});

// Did a job that stopped on its checkpoint signal get it from the scheduler's wall-time warning? True when it
// ran into the window where that warning comes (Slurm sends it up to 60 s before the lead asked for).
bool stoppedAtWallTimeWarning(const JobSpec &spec, const JobInfo &job);

// The job that speaks for a run (its state, whether it ended): the first not ended, as attempts submitted up
// front (submit --chain) wait behind it; when all have, the last one, passing over attempts of a chain that
// were cancelled without ever running (the one before them completed).
qsizetype speakingJob(const QList<JobRecord> &jobs);

// A waiting attempt of a chain whose dependency can never be met, as an attempt before it completed: Slurm
// keeps it pending for ever, so the tracker cancels it. `earlier`: the run's attempts before it. A job that
// waits on a dependency the user gave, with no completed attempt before it, is left alone.
bool waitsInVain(const JobInfo &job, const QList<JobRecord> &earlier);

// The attempts of a run's chain to cancel, the last first: from the first that waits in vain to the end.
// Last first, since a cancelled attempt counts as failed to the afternotok of the one after it, which would
// then start. `polled`: what the scheduler said, by job id.
QStringList chainLeftovers(const QList<JobRecord> &jobs, const QHash<QString, JobInfo> &polled);

} // namespace torchdeck
