#include "gui/resumerequest.h"

#include "core/jobs/runlayout.h"
#include "core/profiles/profilestore.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck {

std::optional<remote::LaunchRequest> resumeRequest(const RunStore &store, const ProfileStore &profiles,
                                                   const RunRecord &run, const QString &from,
                                                   const QString &epochs, QString *error)
{
    const auto jobs = store.jobs(run.id);
    if (!jobs.ok() || jobs.value.isEmpty()) {
        *error = QObject::tr("run %1 has no jobs to resume from").arg(run.id.left(8));
        return std::nullopt;
    }
    const JobRecord &latest = jobs.value.constLast();
    if (!isFinal(jobStateFromName(latest.state))) {
        *error = QObject::tr("run %1 is still %2 (job %3); cancel it first").arg(run.id.left(8), latest.state, latest.jobId);
        return std::nullopt;
    }
    const JobSpec::FromJson spec = JobSpec::fromJson(QJsonDocument::fromJson(run.specJson.toUtf8()).object());
    if (!spec.ok()) {
        *error = QObject::tr("the stored job of this run is unreadable: %1").arg(spec.error);
        return std::nullopt;
    }
    if (spec.spec.commandKind != CommandKind::Trainer) {
        *error = QObject::tr("only runs of the bundled trainer can resume from a checkpoint");
        return std::nullopt;
    }
    remote::LaunchRequest request;
    request.profile = profiles.profile(run.cluster);
    request.spec = spec.spec;
    if (!epochs.isEmpty())
        request.spec.trainerArgs = withTrainerOption(request.spec.trainerArgs, QStringLiteral("--epochs"), epochs);
    request.runId = run.id;
    request.attempt = latest.attempt + 1;
    request.resume = from.isEmpty() ? QStringLiteral("auto") : from;
    return request;
}

remote::LaunchRequest newRunRequest(const ClusterProfile &profile, const JobSpec &spec, const QString &script)
{
    remote::LaunchRequest request;
    request.profile = profile;
    request.spec = spec;
    request.script = script;
    request.resume = spec.commandKind == CommandKind::Trainer
                             && trainerOption(spec.trainerArgs, QStringLiteral("--resume")).isEmpty()
                         ? QStringLiteral("auto")
                         : QString();
    return request;
}

} // namespace torchdeck
