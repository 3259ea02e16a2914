#pragma once

#include <QString>
#include <QtGlobal>

namespace torchdeck {

// Will a job's wall time hold a checkpoint? From measured seconds per epoch, per step and per checkpoint
// save (an earlier attempt or a comparable run), the job's wall time and the lead of its checkpoint signal.
struct WallTimeBudget {
    bool known = false;      // false: no wall time or no measurement, nothing to say
    qint64 epochsPerJob = 0; // whole epochs, each with its checkpoint, before the signal arrives
    bool reachesCheckpoint = false;
    int suggestedLeadSeconds = 0; // the signal's lead that still leaves time to finish a step and save
    QString summary;              // one line for the fronts
};

WallTimeBudget wallTimeBudget(qint64 wallTimeSeconds, int signalLeadSeconds, double secondsPerEpoch,
                              double secondsPerStep, double secondsPerCheckpoint);

// While a job runs: does its next checkpoint land before the scheduler's warning signal? Times are Unix
// seconds; the job's start is its trainer's start event (a little after the scheduler's start, so the signal
// may come a few seconds sooner than said).
struct CheckpointOutlookInput {
    qint64 wallTimeSeconds = 0;
    int signalLeadSeconds = 0; // 0: no signal asked, the wall time itself is the end
    double jobStart = 0;
    double now = 0;
    double lastStepTime = 0;       // when the latest step event was written
    qint64 stepsToCheckpoint = -1; // after that step; 0: the checkpoint at that step is being written
    qint64 nextCheckpointStep = 0;
    double secondsPerStep = 0; // training and validation, per step
    double secondsPerCheckpoint = 0;
};

struct CheckpointOutlook {
    bool known = false;
    double nextCheckpointIn = 0; // seconds from now
    double signalIn = 0;         // seconds from now until the signal (or the wall time's end)
    bool fits = false;
    QString summary;
};

CheckpointOutlook checkpointOutlook(const CheckpointOutlookInput &in);

} // namespace torchdeck
