#include "core/runs/launchrequest.h"

#include "core/code/trainerbundle.h"
#include "core/coretr.h"
#include "core/jobs/jobscript.h"
#include "core/jobs/runlayout.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck {

LaunchRequest newRunRequest(const ClusterProfile &profile, const JobSpec &spec, const QString &script)
{
    LaunchRequest request;
    request.profile = profile;
    request.spec = spec;
    request.script = script;
    request.resume = spec.commandKind == CommandKind::Trainer &&
                             trainerOption(spec.trainerArgs, QStringLiteral("--resume")).isEmpty()
                         ? ResumeFrom::latest()
                         : ResumeFrom();
    return request;
}

QString launchRequestJson(const LaunchRequest &request, const QString &script)
{
    QJsonArray after;
    for (const QString &id : request.after.jobIds)
        after.append(id);
    QJsonObject object{{QStringLiteral("spec"), request.spec.toJson()},
                       {QStringLiteral("run"), request.runId},
                       {QStringLiteral("attempt"), request.attempt},
                       {QStringLiteral("resume"), request.resume.text()},
                       {QStringLiteral("script"), script},
                       {QStringLiteral("after_kind"), int(request.after.kind)},
                       {QStringLiteral("after"), after},
                       {QStringLiteral("origin"), request.origin}};
    if (request.array.isSet())
        object.insert(QStringLiteral("array"), QJsonObject{{QStringLiteral("name"), request.array.name},
                                                           {QStringLiteral("script"), request.array.script},
                                                           {QStringLiteral("task"), request.array.task}});
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

std::optional<LaunchRequest> launchRequestFromJson(const ClusterProfile &profile, const QString &json)
{
    const QJsonObject object = QJsonDocument::fromJson(json.toUtf8()).object();
    const JobSpec::FromJson spec = JobSpec::fromJson(object.value(u"spec").toObject());
    const int afterKind = object.value(u"after_kind").toInt(-1);
    if (!spec.ok() || object.value(u"run").toString().isEmpty() || afterKind < SubmitDependency::None ||
        afterKind > SubmitDependency::AfterAny)
        return std::nullopt;
    LaunchRequest request;
    request.profile = profile;
    request.spec = spec.spec;
    request.runId = object.value(u"run").toString();
    request.attempt = object.value(u"attempt").toInt();
    request.resume = ResumeFrom::fromText(object.value(u"resume").toString());
    request.script = object.value(u"script").toString();
    request.origin = object.value(u"origin").toString();
    request.after.kind = SubmitDependency::Kind(afterKind);
    for (const auto &id : object.value(u"after").toArray())
        request.after.jobIds.append(id.toString());
    const QJsonObject array = object.value(u"array").toObject();
    request.array = {array.value(u"name").toString(), array.value(u"script").toString(),
                     array.value(u"task").toInt(-1)};
    return request;
}

QString attemptJobName(const QString &name, const QString &runId, int attempt)
{
    constexpr qsizetype longestName = 64; // what job spec validation allows (and PBS Pro keeps)
    const QString tag = QStringLiteral("-%1-a%2").arg(runId.left(8)).arg(attempt);
    return name.left(longestName - tag.size()) + tag;
}

SubmissionScript renderSubmission(const LaunchRequest &request, const QString &workDirectory,
                                  const QString &trainerBinary)
{
    const ClusterProfile &profile = request.profile;
    JobSpec spec = request.spec;
    if (spec.partition.isEmpty())
        spec.partition = profile.partition;
    if (spec.account.isEmpty())
        spec.account = profile.account;
    if (spec.modules.isEmpty())
        spec.modules = profile.modules;
    for (const ClusterCommand &variant : spec.commandOn)
        if (variant.cluster == profile.name && spec.commandKind == CommandKind::Custom)
            spec.customCommand = variant.command; // this cluster's own (`--command-on`)
    SubmissionScript rendered;
    rendered.runDirectory = WorkLayout{workDirectory}.runDirectory(request.runId);
    spec.name = attemptJobName(spec.name, request.runId, request.attempt);
    rendered.attemptSpec =
        attemptSpec(spec, RunLayout{rendered.runDirectory}, request.attempt, trainerBinary, request.resume);
    if (!request.script.isEmpty()) {
        rendered.script = request.script;
        return rendered;
    }
    const ScriptResult script = renderJobScript(rendered.attemptSpec, profile.caps());
    rendered.script = script.script;
    rendered.errors = script.errors;
    return rendered;
}

std::optional<LaunchRequest> resumeRequest(const RunStore &store, const ClusterProfile &profile, const RunRecord &run,
                                           ResumeFrom from, const QString &epochs, QString *error,
                                           const QString &moving)
{
    const auto jobs = store.jobs(run.id);
    if (!jobs.ok() || jobs.value.isEmpty()) {
        *error = core::Tr::tr("run %1 has no jobs to resume from").arg(run.id.left(8));
        return std::nullopt;
    }
    const JobRecord &latest = jobs.value.constLast();
    if (latest.jobId.isEmpty()) {
        *error = core::Tr::tr("attempt %1 of run %2 is being submitted; one claimed by a torchdeck that stopped "
                              "is taken over within 5 minutes")
                     .arg(latest.attempt)
                     .arg(run.id.left(8));
        return std::nullopt;
    }
    // A move replaces its job only while that job still waits: one that started is not to be replaced.
    const bool replaced = !moving.isEmpty() && latest.jobId == moving &&
                          (latest.jobState() == JobState::Pending || latest.jobState() == JobState::Requeued);
    if (!latest.hasEnded() && !replaced) {
        *error = core::Tr::tr("run %1 is still %2 (job %3); cancel it first (torchdeck cancel %1)")
                     .arg(run.id.left(8), latest.state, latest.jobId);
        return std::nullopt;
    }
    const JobSpec::FromJson spec = run.spec();
    if (!spec.ok()) {
        *error = core::Tr::tr("the stored job of this run is unreadable: %1").arg(spec.error);
        return std::nullopt;
    }
    // A custom command finds its own checkpoint: it gets TORCHDECK_RESUME=1 and TORCHDECK_CHECKPOINT_DIR.
    const bool latestOrScratch = from.kind() == ResumeFrom::Kind::Latest || from.kind() == ResumeFrom::Kind::Scratch;
    if (spec.spec.commandKind != CommandKind::Trainer && (!latestOrScratch || !epochs.isEmpty())) {
        *error = core::Tr::tr("a custom command resumes from its own latest checkpoint (auto) or from scratch "
                              "(none); a checkpoint or --epochs can only be given to the bundled trainer");
        return std::nullopt;
    }
    if (from.kind() == ResumeFrom::Kind::AsSpecified)
        from = ResumeFrom::latest();
    if (from.kind() == ResumeFrom::Kind::Checkpoint && !from.isCheckpointPath()) {
        // A checkpoint by file name or by step, as `torchdeck checkpoints` lists them.
        const QString found = checkpointNamed(store.checkpoints(run.id).value, from.checkpoint());
        if (found.isEmpty()) {
            *error = core::Tr::tr("run %1 has no checkpoint '%2' (torchdeck checkpoints %1 lists them)")
                         .arg(run.id.left(8), from.checkpoint());
            return std::nullopt;
        }
        from = ResumeFrom::checkpoint(found);
    }
    LaunchRequest request;
    request.profile = profile;
    request.spec = spec.spec;
    if (!epochs.isEmpty())
        request.spec.trainerArgs = withTrainerOption(request.spec.trainerArgs, QStringLiteral("--epochs"), epochs);
    // A completed run goes on from its final checkpoint: to as many epochs as it did, its job would train nothing.
    if (spec.spec.commandKind == CommandKind::Trainer && from.kind() == ResumeFrom::Kind::Latest &&
        run.state == u"completed") {
        const QString target = trainerOption(request.spec.trainerArgs, QStringLiteral("--epochs"));
        const qint64 wanted = target.isEmpty() ? 1 : target.toLongLong();
        if (wanted <= run.epochsDone) {
            *error = core::Tr::tr("run %1 completed its %2 epoch(s): give --epochs with more to train on")
                         .arg(run.id.left(8))
                         .arg(run.epochsDone);
            return std::nullopt;
        }
    }
    request.runId = run.id;
    request.attempt = latest.attempt + 1;
    request.resume = from;
    request.origin = moving.isEmpty() ? QStringLiteral("resume") : QStringLiteral("restart"); // a move is the agent's
    return request;
}

QString trainerBinaryOn(const ClusterProfile &profile, const QString &workDirectory)
{
    return !profile.trainerBinary.isEmpty() ? profile.trainerBinary
                                            : WorkLayout{workDirectory}.trainerBinary(embeddedTrainerHash());
}

} // namespace torchdeck
