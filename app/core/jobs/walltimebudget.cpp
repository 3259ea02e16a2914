#include "core/jobs/walltimebudget.h"

#include "core/jobs/walltime.h"

#include <cmath>

namespace torchdeck {

namespace {
constexpr int minimumLeadSeconds = 60; // the scheduler's own signal timing is coarse (Slurm: up to 60 s late)
}

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
    budget.suggestedLeadSeconds = std::max(minimumLeadSeconds, int(std::ceil(2.0 * (step + save))));
    const double usable = double(wallTimeSeconds - std::max(signalLeadSeconds, 0));
    budget.epochsPerJob = usable > 0 ? qint64(std::floor(usable / (secondsPerEpoch + save))) : 0;
    budget.reachesCheckpoint = budget.epochsPerJob > 0;
    const QString measured = QStringLiteral("%1 s/epoch, %2 s/checkpoint")
                                 .arg(secondsPerEpoch, 0, 'f', 1)
                                 .arg(save, 0, 'f', 1);
    if (!budget.reachesCheckpoint) {
        budget.summary = QStringLiteral("wall time %1 cannot reach one epoch's checkpoint (%2, signal %3 s before the "
                                        "end): ask for more time or checkpoint every N steps")
                             .arg(formatSlurmWallTime(wallTimeSeconds), measured)
                             .arg(signalLeadSeconds);
    } else {
        budget.summary = QStringLiteral("wall time %1 holds %2 epoch(s) per job (%3, signal %4 s before the end)")
                             .arg(formatSlurmWallTime(wallTimeSeconds))
                             .arg(budget.epochsPerJob)
                             .arg(measured)
                             .arg(signalLeadSeconds);
    }
    if (signalLeadSeconds < budget.suggestedLeadSeconds)
        budget.summary += QStringLiteral("; the signal's lead should be at least %1 s").arg(budget.suggestedLeadSeconds);
    return budget;
}

} // namespace torchdeck
