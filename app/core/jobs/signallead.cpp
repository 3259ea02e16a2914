#include "core/jobs/signallead.h"

#include "core/coretr.h"

#include <algorithm>

namespace torchdeck {

int defaultSignalLeadSeconds(const JobSpec &spec)
{
    if (spec.wallTimeSeconds <= 0)
        return kDefaultSignalLeadSeconds;
    int lead = int(std::min<qint64>(kDefaultSignalLeadSeconds, spec.wallTimeSeconds / kSignalLeadWallTimeShare));
    if (customUnderPerNodeLauncher(spec))
        lead = std::max(lead, kPerNodeLauncherMinLeadSeconds);
    return lead;
}

QString signalLeadDefaultReason(const JobSpec &spec)
{
    const int lead = defaultSignalLeadSeconds(spec);
    if (spec.wallTimeSeconds <= 0 || lead == kDefaultSignalLeadSeconds)
        return {};
    if (customUnderPerNodeLauncher(spec) && lead == kPerNodeLauncherMinLeadSeconds)
        return core::Tr::tr("%1 s by default: over the %2 s torchrun gives its workers")
            .arg(lead)
            .arg(kTorchrunGraceSeconds);
    return core::Tr::tr("%1 s by default: a fifth of the wall time").arg(lead);
}

} // namespace torchdeck
