#include "core/runs/launchrecords.h"

#include "core/jobs/runlayout.h"
#include "core/scheduler/jobstate.h"

#include <QJsonDocument>

namespace torchdeck {

LaunchRecords claimedLaunchRecords(const LaunchRequest &request, const SubmissionScript &rendered,
                                   const std::optional<RunRecord> &stored)
{
    const JobSpec &spec = rendered.attemptSpec;
    LaunchRecords records;
    RunRecord &run = records.run;
    run = stored.value_or(RunRecord{});
    run.id = request.runId;
    run.name = request.spec.name;
    run.cluster = request.profile.name;
    run.state = jobStateName(JobState::Pending);
    run.specJson = QString::fromUtf8(QJsonDocument(request.spec.toJson()).toJson(QJsonDocument::Compact));
    run.script = rendered.script;
    if (!request.placement.isEmpty())
        run.placement = request.placement;
    if (const qint64 epochs = specifiedEpochs(request.spec); epochs >= 0)
        run.epochsTotal = epochs;
    run.message.clear();
    JobRecord &job = records.job;
    job.runId = run.id;
    job.attempt = request.attempt;
    job.cluster = request.profile.name;
    job.origin = !request.origin.isEmpty()                      ? request.origin
                 : request.attempt == 0                         ? QStringLiteral("submit")
                 : request.after.kind != SubmitDependency::None ? QStringLiteral("chain")
                                                                : QStringLiteral("resume");
    job.state = jobStateName(JobState::Pending);
    job.resumeFrom = request.resume.kind() == ResumeFrom::Kind::Checkpoint ? request.resume.checkpoint() : QString();
    job.metricsPath = spec.commandKind == CommandKind::Trainer
                          ? trainerOption(spec.trainerArgs, QStringLiteral("--metrics"))
                          : environmentValue(spec, QStringLiteral("TORCHDECK_METRICS_FILE"));
    return records;
}

JobRecord submittedJobRecord(JobRecord claimed, const JobSpec &attemptSpec, const QString &jobId,
                             const QDateTime &submitted)
{
    claimed.jobId = jobId;
    claimed.submitted = submitted;
    claimed.stdoutPath = expandLogPath(effectiveOutputPath(attemptSpec), jobId, attemptSpec.name);
    const QString errorPath = effectiveErrorPath(attemptSpec);
    claimed.stderrPath = errorPath.isEmpty() ? QString() : expandLogPath(errorPath, jobId, attemptSpec.name);
    return claimed;
}

} // namespace torchdeck
