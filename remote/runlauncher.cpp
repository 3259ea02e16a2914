#include "remote/runlauncher.h"

#include "core/jobs/jobscript.h"
#include "core/jobs/jobspecvalidation.h"
#include "core/jobs/runlayout.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "remote/checkpointbranch.h"
#include "remote/connection.h"
#include "remote/pbsbuildjob.h"
#include "remote/remotepath.h"
#include "remote/schedulerclient.h"
#include "remote/trainerdeployment.h"

#include <QJsonDocument>
#include <QUuid>

namespace torchdeck::remote {

namespace {
ClusterCaps capsOf(const ClusterProfile &profile)
{
    ClusterCaps caps;
    caps.scheduler = profile.scheduler;
    caps.pbsDialect = profile.pbsDialect;
    return caps;
}
} // namespace

RunLauncher::RunLauncher(Connection *connection, RunStore *store, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_store(store)
{
    qRegisterMetaType<LaunchResult>();
}

void RunLauncher::start(const LaunchRequest &request)
{
    begin(request, false);
}

void RunLauncher::preview(const LaunchRequest &request)
{
    begin(request, true);
}

void RunLauncher::begin(const LaunchRequest &request, bool previewOnly)
{
    m_request = request;
    m_previewOnly = previewOnly;
    if (m_request.runId.isEmpty())
        m_request.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    // A spec that cannot render fails before anything is uploaded or built.
    if (m_request.script.isEmpty()) {
        const QList<JobSpecError> errors = validateJobSpec(m_request.spec, capsOf(m_request.profile));
        if (!errors.isEmpty())
            return fail(QStringLiteral("the job cannot be submitted:\n") + formatJobSpecErrors(errors));
    }
    resolveDirectory();
}

void RunLauncher::fail(const QString &error)
{
    emit failed(error);
}

void RunLauncher::resolveDirectory()
{
    if (!m_connection)
        return fail(QStringLiteral("no connection"));
    emit progress(QStringLiteral("Preparing the run directory"), 0, 0);
    const QString workExpression = remotePathExpression(m_request.profile.workDirectory);
    // A preview creates nothing on the cluster: it only needs the absolute path.
    const QString command =
        m_previewOnly ? QStringLiteral("case %1 in /*) echo %1 ;; *) echo \"$PWD\"/%1 ;; esac").arg(workExpression)
                      : QStringLiteral("mkdir -p %1/runs/%2 %1/local && cd %1 && pwd -P")
                            .arg(workExpression, shellQuote(m_request.runId));
    RemoteCommand *run = m_connection->run(command);
    connect(run, &RemoteCommand::failed, this,
            [this](const QString &error) { fail(QStringLiteral("preparing the run directory: ") + error); });
    connect(run, &RemoteCommand::finished, this, [this](const ExecResult &result) {
        const QString work = QString::fromUtf8(result.out.trimmed());
        if (result.exitCode != 0 || !work.startsWith(u'/'))
            return fail(QStringLiteral("cannot use the work directory %1 on %2: %3")
                            .arg(m_request.profile.workDirectory, m_request.profile.name,
                                 QString::fromUtf8(result.err.trimmed())));
        m_workDirectory = work;
        m_runDirectory = work + QStringLiteral("/runs/") + m_request.runId;
        m_localStateDirectory = work + QStringLiteral("/local");
        deploy();
    });
}

void RunLauncher::deploy()
{
    const ClusterProfile &profile = m_request.profile;
    if (m_request.spec.commandKind != CommandKind::Trainer || !profile.trainerBinary.isEmpty())
        return render(profile.trainerBinary);
    if (m_previewOnly) // where the deployment will put it
        return render(
            QStringLiteral("%1/trainer/%2/build/torchdeck-train").arg(m_workDirectory, TrainerBundle::embedded().hash));
    DeploySettings settings;
    settings.workDirectory = profile.workDirectory;
    settings.libtorchPrefix = profile.libtorchPrefix();
    settings.moduleLines = profile.moduleLoadLines();
    if (profile.buildInJob && profile.scheduler == SchedulerKind::Pbs) {
        QString error;
        settings.buildJobScript = pbsBuildJobScript(
            profile, QStringLiteral("%1/trainer/%2").arg(m_workDirectory, TrainerBundle::embedded().hash),
            profile.buildCpus, &error);
        if (settings.buildJobScript.isEmpty())
            return fail(error);
    } else if (profile.buildInJob) {
        if (profile.scheduler != SchedulerKind::Slurm)
            return fail(QStringLiteral("building the trainer in a job needs Slurm or PBS; set build_on to login for %1")
                            .arg(profile.name));
        // A job step that blocks and streams its output, like the login-node build.
        settings.buildLauncher = {QStringLiteral("srun"),
                                  QStringLiteral("--nodes=1"),
                                  QStringLiteral("--ntasks=1"),
                                  QStringLiteral("--cpus-per-task=%1").arg(profile.buildCpus),
                                  QStringLiteral("--time=00:30:00"),
                                  QStringLiteral("--job-name=torchdeck-build")};
        if (!profile.partition.isEmpty())
            settings.buildLauncher << QStringLiteral("--partition=") + profile.partition;
        if (!profile.account.isEmpty())
            settings.buildLauncher << QStringLiteral("--account=") + profile.account;
    }
    auto *deployment = new TrainerDeployment(m_connection, TrainerBundle::embedded(), settings, this);
    connect(deployment, &TrainerDeployment::progress, this, &RunLauncher::progress);
    connect(deployment, &TrainerDeployment::output, this, &RunLauncher::output);
    connect(deployment, &TrainerDeployment::failed, this, [this, deployment](const QString &error) {
        deployment->deleteLater();
        fail(QStringLiteral("deploying the trainer: ") + error);
    });
    connect(deployment, &TrainerDeployment::finished, this, [this, deployment](const DeployResult &result) {
        deployment->deleteLater();
        render(result.binary);
    });
    deployment->start();
}

void RunLauncher::render(const QString &trainerBinary)
{
    const ClusterProfile &profile = m_request.profile;
    JobSpec spec = m_request.spec;
    if (spec.partition.isEmpty())
        spec.partition = profile.partition;
    if (spec.account.isEmpty())
        spec.account = profile.account;
    if (spec.modules.isEmpty())
        spec.modules = profile.modules;
    m_attemptSpec = attemptSpec(spec, RunLayout{m_runDirectory}, m_request.attempt, trainerBinary, m_request.resume);
    if (!m_request.script.isEmpty()) {
        m_script = m_request.script;
    } else {
        const ScriptResult script = renderJobScript(m_attemptSpec, capsOf(profile));
        if (!script.ok())
            return fail(QStringLiteral("the job cannot be submitted:\n") + formatJobSpecErrors(script.errors));
        m_script = script.script;
    }
    emit rendered(m_script);
    if (!m_previewOnly)
        branchCheckpoints();
}

void RunLauncher::branchCheckpoints()
{
    const QString checkpointDirectory = trainerOption(m_attemptSpec.trainerArgs, QStringLiteral("--checkpoint-dir"));
    if (m_attemptSpec.commandKind != CommandKind::Trainer || !m_request.resume.startsWith(u'/') ||
        checkpointDirectory.isEmpty())
        return submit();
    emit progress(QStringLiteral("Branching the run's checkpoints"), 0, 0);
    const CheckpointBranch branch{checkpointDirectory, m_request.resume, m_request.attempt};
    RemoteCommand *run = m_connection->run(branch.command());
    connect(run, &RemoteCommand::failed, this,
            [this](const QString &error) { fail(QStringLiteral("branching the checkpoints: ") + error); });
    connect(run, &RemoteCommand::finished, this, [this, branch](const ExecResult &result) {
        branch.apply(*m_store, m_request.runId, result.out);
        if (result.exitCode != 0)
            return fail(QStringLiteral("cannot resume from %1: %2")
                            .arg(m_request.resume, QString::fromUtf8(result.err.trimmed())));
        submit();
    });
}

void RunLauncher::submit()
{
    emit progress(QStringLiteral("Submitting"), 0, 0);
    auto *client = new SchedulerClient(m_connection, m_request.profile.commands(m_localStateDirectory), this);
    connect(client, &SchedulerClient::failed, this, [this, client](const QString &error) {
        client->deleteLater();
        fail(error);
    });
    connect(client, &SchedulerClient::submitted, this, [this, client](const QString &jobId) {
        client->deleteLater();
        record(jobId);
    });
    client->submit(m_script, m_runDirectory, RunLayout{m_runDirectory}.scriptName(m_request.attempt), m_request.after);
}

void RunLauncher::record(const QString &jobId)
{
    const RunLayout layout{m_runDirectory};
    const int attempt = m_request.attempt;
    LaunchResult result{m_request.runId, attempt, jobId, m_runDirectory, m_script};
    const auto existing = m_store->run(m_request.runId);
    if (!existing.ok())
        return fail(QStringLiteral("job %1 was submitted, but the run store failed: %2").arg(jobId, existing.error));
    RunRecord run = existing.value.value_or(RunRecord{});
    run.id = m_request.runId;
    run.name = m_request.spec.name;
    run.cluster = m_request.profile.name;
    run.state = jobStateName(JobState::Pending);
    run.specJson = QString::fromUtf8(QJsonDocument(m_request.spec.toJson()).toJson(QJsonDocument::Compact));
    run.script = m_script;
    const QString epochs = trainerOption(m_request.spec.trainerArgs, QStringLiteral("--epochs"));
    if (!epochs.isEmpty())
        run.epochsTotal = epochs.toLongLong();
    run.message.clear();
    const StoreStatus saved = existing.value ? m_store->updateRun(run) : m_store->addRun(run);
    JobRecord job;
    job.runId = run.id;
    job.attempt = attempt;
    job.jobId = jobId;
    job.submitted = QDateTime::currentDateTimeUtc();
    job.state = jobStateName(JobState::Pending);
    job.resumeFrom = m_request.resume == u"auto" || m_request.resume == u"none" ? QString() : m_request.resume;
    job.stdoutPath = expandLogPath(effectiveOutputPath(m_attemptSpec), jobId, m_attemptSpec.name);
    const QString errorPath = effectiveErrorPath(m_attemptSpec);
    job.stderrPath = errorPath.isEmpty() ? QString() : expandLogPath(errorPath, jobId, m_attemptSpec.name);
    job.metricsPath = m_attemptSpec.commandKind == CommandKind::Trainer
                          ? trainerOption(m_attemptSpec.trainerArgs, QStringLiteral("--metrics"))
                          : QString();
    const StoreStatus jobSaved = saved.ok() ? m_store->saveJob(job) : saved;
    if (!jobSaved.ok())
        return fail(QStringLiteral("job %1 was submitted, but the run store failed: %2").arg(jobId, jobSaved.error));
    emit submitted(result);
}

} // namespace torchdeck::remote
