#include "gui/resumerequest.h"

#include "core/jobs/runlayout.h"
#include "core/profiles/profilestore.h"
#include "core/store/runstore.h"
#include "remote/resumerequest.h"

namespace torchdeck {

std::optional<remote::LaunchRequest> resumeRequest(const RunStore &store, const ProfileStore &profiles,
                                                   const RunRecord &run, const QString &from, const QString &epochs,
                                                   QString *error)
{
    return remote::resumeRequest(store, profiles.profile(run.cluster), run,
                                 from.isEmpty() ? QStringLiteral("auto") : from, epochs, error);
}

remote::LaunchRequest newRunRequest(const ClusterProfile &profile, const JobSpec &spec, const QString &script)
{
    remote::LaunchRequest request;
    request.profile = profile;
    request.spec = spec;
    request.script = script;
    request.resume = spec.commandKind == CommandKind::Trainer &&
                             trainerOption(spec.trainerArgs, QStringLiteral("--resume")).isEmpty()
                         ? QStringLiteral("auto")
                         : QString();
    return request;
}

} // namespace torchdeck
