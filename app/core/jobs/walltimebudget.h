#pragma once

#include <QString>
#include <QtGlobal>

namespace torchdeck {

// Will a job's wall time hold a checkpoint? From measured seconds per epoch, per step and per checkpoint
// save (an earlier attempt or a comparable run), the job's wall time and the lead of its checkpoint signal.
struct WallTimeBudget {
    bool known = false;         // false: no wall time or no measurement, nothing to say
    qint64 epochsPerJob = 0;    // whole epochs, each with its checkpoint, before the signal arrives
    bool reachesCheckpoint = false;
    int suggestedLeadSeconds = 0; // the signal's lead that still leaves time to finish a step and save
    QString summary;              // one line for the fronts
};

WallTimeBudget wallTimeBudget(qint64 wallTimeSeconds, int signalLeadSeconds, double secondsPerEpoch,
                              double secondsPerStep, double secondsPerCheckpoint);

} // namespace torchdeck
