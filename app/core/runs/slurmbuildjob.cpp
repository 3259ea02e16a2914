#include "core/runs/slurmbuildjob.h"

#include "core/profiles/clusterprofile.h"

namespace torchdeck {

QStringList slurmBuildLauncher(const ClusterProfile &profile)
{
    QStringList launcher{QStringLiteral("srun"),
                         QStringLiteral("--nodes=1"),
                         QStringLiteral("--ntasks=1"),
                         QStringLiteral("--cpus-per-task=%1").arg(profile.buildCpus),
                         QStringLiteral("--time=00:30:00"),
                         QStringLiteral("--job-name=torchdeck-build")};
    if (!profile.partition.isEmpty())
        launcher << QStringLiteral("--partition=") + profile.partition;
    if (!profile.account.isEmpty())
        launcher << QStringLiteral("--account=") + profile.account;
    return launcher;
}

} // namespace torchdeck
