#include "core/runs/restartmechanism.h"

#include "core/coretr.h"

namespace torchdeck {

RestartMechanism restartMechanism(const ClusterProfile &profile, std::optional<bool> chosen)
{
    using core::Tr;
    if (profile.scheduler == SchedulerKind::Local)
        return {false, Tr::tr("restarted from outside by the torchdeck agent (a local run has no scheduler to "
                              "requeue it)")};
    if (chosen)
        return *chosen
                   ? RestartMechanism{true, Tr::tr("the job requeues itself (--requeue)")}
                   : RestartMechanism{false, Tr::tr("restarted from outside by the torchdeck agent (--no-requeue)")};
    switch (profile.inJobRequeue) {
    case InJobRequeue::Allowed:
        return {true, Tr::tr("the job requeues itself: torchdeck check proved %1 allows it").arg(profile.name)};
    case InJobRequeue::Refused:
        return {false, Tr::tr("restarted from outside by the torchdeck agent: %1 refused a job's own requeue "
                              "(torchdeck check)")
                           .arg(profile.name)};
    case InJobRequeue::Unknown:
        break;
    }
    return {false, Tr::tr("restarted from outside by the torchdeck agent (torchdeck check %1 proves whether its jobs "
                          "can requeue themselves)")
                       .arg(profile.name)};
}

RestartMechanism movingRestartMechanism()
{
    return {false, core::Tr::tr("restarted from outside by the torchdeck agent, which may move a restart that waits "
                                "(--move-after)")};
}

} // namespace torchdeck
