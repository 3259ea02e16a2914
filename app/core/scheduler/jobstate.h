#pragma once

#include <QString>

namespace torchdeck {

// A job's state, the same for every scheduler. The scheduler's own word stays in JobInfo::rawState.
enum class JobState {
    Pending, // waiting: queued, held, dependency, begin time, suspended without its CPUs
    Running,
    Completing, // ended, the scheduler is cleaning up (Slurm CG, PBS E)
    Completed,  // exit code 0
    Failed,     // non-zero exit, killed by a signal, node failure, out of memory, launch failure
    Cancelled,
    Timeout, // reached its wall time
    Preempted,
    Requeued, // put back in the queue after it ran; it runs again unless held
    Unknown,
};

// "pending", "running", ... (lowercase, stable: stored in the run database). Not named toString: a free
// toString(JobState) returning QString would hijack QTest's QCOMPARE on JobState through ADL.
QString jobStateName(JobState state);
JobState jobStateFromName(const QString &text); // inverse of jobStateName; anything else is Unknown

// The job has ended and will not run again by itself: polling it further is pointless.
bool isFinal(JobState state);

// Slurm's state codes (PD, R, CG, TO...) and names (PENDING, "CANCELLED by 0", "CANCELLED+" as sacct
// truncates it). Unrecognised text is Unknown.
JobState slurmJobState(const QString &codeOrName);

// PBS's one-letter job_state (PBS Pro/OpenPBS and Torque). The finished letters (F, X, C) give Completed:
// the letter alone does not say how the job ended (pbsFinishedState does, from Exit_status). Unrecognised
// text is Unknown.
JobState pbsJobState(const QString &letter);

} // namespace torchdeck
