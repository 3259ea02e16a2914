#include "core/jobs/walltimebudget.h"

#include "core/coretr.h"
#include "core/duration.h"
#include "core/jobs/signallead.h"
#include "core/jobs/walltime.h"

#include <algorithm>
#include <cmath>

namespace torchdeck {

namespace {
// The scheduler's timing is coarse (Slurm's resolution is a minute): never advise less, but for a short wall time no
// more than its default lead's share of it, which the advice would otherwise contradict.
constexpr int minimumLeadSeconds = 60;

QString approximately(double seconds)
{
    return u'~' + formatDuration(std::max(seconds, 0.0));
}
} // namespace

WallTimeBudget wallTimeBudget(qint64 wallTimeSeconds, int signalLeadSeconds, double secondsPerEpoch,
                              double secondsPerStep, double secondsPerCheckpoint)
{
    WallTimeBudget budget;
    if (wallTimeSeconds <= 0 || !(secondsPerEpoch > 0))
        return budget;
    const double step = secondsPerStep > 0 ? secondsPerStep : 0.0;
    const double save = secondsPerCheckpoint > 0 ? secondsPerCheckpoint : 0.0;
    budget.known = true;
    // After the signal the ranks finish the step they are in and rank 0 saves: twice that, for safety.
    const int floor = int(std::min<qint64>(minimumLeadSeconds, wallTimeSeconds / kSignalLeadWallTimeShare));
    budget.suggestedLeadSeconds = std::max(floor, int(std::ceil(2.0 * (step + save))));
    const double usable = double(wallTimeSeconds - std::max(signalLeadSeconds, 0));
    budget.epochsPerJob = usable > 0 ? qint64(std::floor(usable / (secondsPerEpoch + save))) : 0;
    budget.reachesCheckpoint = budget.epochsPerJob > 0;
    const QString measured =
        core::Tr::tr("%1 s/epoch, %2 s/checkpoint").arg(secondsPerEpoch, 0, 'f', 1).arg(save, 0, 'f', 1);
    if (!budget.reachesCheckpoint) {
        budget.summary = core::Tr::tr("wall time %1 cannot reach one epoch's checkpoint (%2, signal %3 s before the "
                                      "end): ask for more time or checkpoint every N steps")
                             .arg(formatSlurmWallTime(wallTimeSeconds), measured)
                             .arg(signalLeadSeconds);
    } else {
        budget.summary = core::Tr::tr("wall time %1 holds %2 epoch(s) per job (%3, signal %4 s before the end)")
                             .arg(formatSlurmWallTime(wallTimeSeconds))
                             .arg(budget.epochsPerJob)
                             .arg(measured)
                             .arg(signalLeadSeconds);
    }
    if (signalLeadSeconds < budget.suggestedLeadSeconds)
        budget.summary += core::Tr::tr("; the signal's lead should be at least %1 s").arg(budget.suggestedLeadSeconds);
    return budget;
}

CheckpointOutlook checkpointOutlook(const CheckpointOutlookInput &in)
{
    CheckpointOutlook outlook;
    if (in.wallTimeSeconds <= 0 || !(in.secondsPerStep > 0) || in.stepsToCheckpoint < 0 || !(in.jobStart > 0))
        return outlook;
    outlook.known = true;
    const double due =
        in.lastStepTime + double(in.stepsToCheckpoint) * in.secondsPerStep + std::max(in.secondsPerCheckpoint, 0.0);
    const double end = in.jobStart + double(in.wallTimeSeconds) - double(std::max(in.signalLeadSeconds, 0));
    outlook.nextCheckpointIn = std::max(due - in.now, 0.0);
    outlook.signalIn = end - in.now;
    outlook.fits = due <= end;
    const QString what = in.signalLeadSeconds > 0 ? core::Tr::tr("the warning signal") : core::Tr::tr("the wall time");
    const QString next = core::Tr::tr("next checkpoint (step %1) in %2")
                             .arg(in.nextCheckpointStep)
                             .arg(approximately(outlook.nextCheckpointIn));
    if (outlook.fits)
        outlook.summary = core::Tr::tr("%1, %2 in %3: it fits").arg(next, what, approximately(outlook.signalIn));
    else if (in.signalLeadSeconds > 0)
        outlook.summary = core::Tr::tr("%1, but the warning signal comes first, in %2: the trainer checkpoints on "
                                       "it and the run goes on in the next job")
                              .arg(next, approximately(outlook.signalIn));
    else
        outlook.summary = core::Tr::tr("%1, but the wall time ends first, in %2, with no signal asked: the work "
                                       "since the last checkpoint will be lost")
                              .arg(next, approximately(outlook.signalIn));
    return outlook;
}

} // namespace torchdeck
