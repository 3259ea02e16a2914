#include "remote/runlauncher.h"

#include "core/code/coderemote.h"
#include "core/jobs/jobspecvalidation.h"
#include "core/jobs/runlayout.h"
#include "core/remotepath.h"
#include "core/runs/checkpointbranch.h"
#include "core/runs/launchrecords.h"
#include "core/runs/pbsbuildjob.h"
#include "core/runs/slurmbuildjob.h"
#include "core/scheduler/jobstate.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "remote/codesync.h"
#include "remote/connection.h"
#include "remote/schedulerclient.h"
#include "remote/trainerdeployment.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QLocale>
#include <QSysInfo>
#include <QUuid>

namespace torchdeck::remote {

namespace {
// Longer than a submission takes (sbatch, and the wait for a broken connection to come back), shorter than
// anyone waits for a restart that a front which stopped had claimed.
constexpr qint64 claimLeaseMs = qint64(5) * 60 * 1000;
} // namespace

RunLauncher::RunLauncher(Connection *connection, RunStore *store, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_store(store)
{
    qRegisterMetaType<LaunchResult>();
    connect(&m_steps, &StepSequence::progress, this, &RunLauncher::progress);
    connect(&m_steps, &StepSequence::failed, this, [this](const QString &error) {
        if (m_elsewhere.isEmpty())
            emit failed(error);
        else
            emit handledElsewhere(m_elsewhere);
    });
    connect(&m_steps, &StepSequence::finished, this, [this] {
        emit submitted({m_request.runId, m_request.attempt, m_jobId, m_rendered.runDirectory, m_rendered.script});
    });
    // A spec that cannot render fails before anything is uploaded or built.
    m_steps.add({{}, {}, [this](const StepHandle &step) {
                     const QList<JobSpecError> errors = m_request.script.isEmpty()
                                                            ? validateJobSpec(m_request.spec, m_request.profile.caps())
                                                            : QList<JobSpecError>{};
                     if (errors.isEmpty())
                         return step.done();
                     step.fail(tr("the job cannot be submitted:\n") + formatJobSpecErrors(errors));
                 }});
    m_steps.add({tr("Preparing the run directory"), tr("preparing the run directory"),
                 [this](const StepHandle &step) { prepareDirectory(step); }});
    m_steps.add({{}, tr("deploying the trainer"), [this](const StepHandle &step) { deploy(step); }});
    m_steps.add({{}, tr("uploading the code"), [this](const StepHandle &step) { syncCode(step); }});
    m_steps.add({{}, tr("making the run's copy of the code"), [this](const StepHandle &step) { linkCode(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { render(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { branchCheckpoints(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { claim(step); }});
    m_steps.add({tr("Submitting"), {}, [this](const StepHandle &step) { submit(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { record(step); }});
}

void RunLauncher::start(const LaunchRequest &request)
{
    m_request = request;
    if (m_request.runId.isEmpty())
        m_request.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    m_steps.start();
}

void RunLauncher::prepareDirectory(const StepHandle &step)
{
    if (!m_connection)
        return step.fail(tr("no connection"));
    // The same resolution as a preview's (core/jobs/runlayout.h), so the paths in the script agree.
    const ClusterProfile &profile = m_request.profile;
    // The run directory is the user's alone (0700): its checkpoints, logs and metrics with it.
    const QString runDirectory =
        QStringLiteral("%1/runs/%2").arg(remotePathExpression(profile.workDirectory), shellQuote(m_request.runId));
    const QString command = QStringLiteral("(umask 077 && mkdir -p %1 && chmod 700 %1) && %2")
                                .arg(runDirectory, workDirectoryCommand(profile.workDirectory));
    RemoteCommand *run = m_connection->run(command);
    connect(run, &RemoteCommand::failed, step.context(), [step](const QString &error) { step.fail(error); });
    connect(run, &RemoteCommand::finished, step.context(), [this, step](const ExecResult &result) {
        const QString work = QString::fromUtf8(result.out.trimmed());
        if (result.exitCode != 0 || !work.startsWith(u'/'))
            return step.fail(tr("cannot use the work directory %1 on %2: %3")
                                 .arg(m_request.profile.workDirectory, m_request.profile.name,
                                      QString::fromUtf8(result.err.trimmed())));
        m_workDirectory = work;
        step.done();
    });
}

void RunLauncher::deploy(const StepHandle &step)
{
    const ClusterProfile &profile = m_request.profile;
    m_trainerBinary = profile.trainerBinary;
    if (m_request.spec.commandKind != CommandKind::Trainer || !profile.trainerBinary.isEmpty())
        return step.done();
    const QString trainerDirectory = WorkLayout{m_workDirectory}.trainerDirectory(TrainerBundle::embedded().hash);
    DeploySettings settings;
    settings.workDirectory = profile.workDirectory;
    settings.libtorchPrefix = profile.libtorchPrefix();
    settings.moduleLines = profile.moduleLoadLines();
    if (profile.buildInJob && profile.scheduler == SchedulerKind::Pbs) {
        QString error;
        settings.buildJobScript = pbsBuildJobScript(profile, trainerDirectory, profile.buildCpus, &error);
        if (settings.buildJobScript.isEmpty())
            return step.fail(error);
    } else if (profile.buildInJob) {
        if (profile.scheduler != SchedulerKind::Slurm)
            return step.fail(
                tr("building the trainer in a job needs Slurm or PBS; set build_on to login for %1").arg(profile.name));
        settings.buildLauncher = slurmBuildLauncher(profile);
    }
    auto *deployment = new TrainerDeployment(m_connection, TrainerBundle::embedded(), settings, step.context());
    connect(deployment, &TrainerDeployment::progress, this, &RunLauncher::progress);
    connect(deployment, &TrainerDeployment::output, this, &RunLauncher::output);
    connect(deployment, &TrainerDeployment::failed, step.context(), [deployment, step](const QString &error) {
        deployment->deleteLater();
        step.fail(error);
    });
    connect(deployment, &TrainerDeployment::finished, step.context(),
            [this, deployment, step](const DeployResult &result) {
                deployment->deleteLater();
                m_trainerBinary = result.binary;
                step.done();
            });
    deployment->start();
}

void RunLauncher::syncCode(const StepHandle &step)
{
    const JobSpec &spec = m_request.spec;
    // Once uploaded, a run keeps its snapshot: a resume runs the same code, whatever the folder holds now.
    if (spec.commandKind != CommandKind::Custom || spec.codeDirectory.isEmpty() || !spec.codeSnapshot.isEmpty())
        return step.done();
    auto *sync = new CodeSync(m_connection, spec.codeDirectory, m_workDirectory, step.context());
    connect(sync, &CodeSync::progress, this, &RunLauncher::progress);
    connect(sync, &CodeSync::failed, step.context(), [sync, step](const QString &error) {
        sync->deleteLater();
        step.fail(error);
    });
    connect(sync, &CodeSync::finished, step.context(), [this, sync, step](const CodeSyncResult &result) {
        sync->deleteLater();
        m_request.spec.codeSnapshot = result.snapshotId;
        emit output(tr("Code snapshot %1: %2 file(s), %3 uploaded (%4), the others already on the cluster\n")
                        .arg(result.snapshotId)
                        .arg(result.files)
                        .arg(result.uploadedFiles)
                        .arg(QLocale::c().formattedDataSize(result.uploadedBytes)));
        step.done();
    });
    sync->start();
}

void RunLauncher::linkCode(const StepHandle &step)
{
    const QString id = m_request.spec.codeSnapshot;
    if (m_request.spec.commandKind != CommandKind::Custom || id.isEmpty())
        return step.done();
    if (!isCodeSnapshotId(id))
        return step.fail(tr("not a code snapshot id: %1").arg(id));
    const QString runDirectory = WorkLayout{m_workDirectory}.runDirectory(m_request.runId);
    RemoteCommand *run =
        m_connection->run(CodeStore{WorkLayout{m_workDirectory}.codeStore()}.linkCommand(id, runDirectory));
    connect(run, &RemoteCommand::failed, step.context(), [step](const QString &error) { step.fail(error); });
    connect(run, &RemoteCommand::finished, step.context(), [step](const ExecResult &result) {
        if (result.exitCode != 0)
            return step.fail(QString::fromUtf8(result.err.trimmed()));
        step.done();
    });
}

void RunLauncher::render(const StepHandle &step)
{
    m_rendered = renderSubmission(m_request, m_workDirectory, m_trainerBinary);
    if (!m_rendered.ok())
        return step.fail(tr("the job cannot be submitted:\n") + formatJobSpecErrors(m_rendered.errors));
    emit rendered(m_rendered.script);
    step.done();
}

void RunLauncher::branchCheckpoints(const StepHandle &step)
{
    const JobSpec &spec = m_rendered.attemptSpec;
    const QString checkpointDirectory = trainerOption(spec.trainerArgs, QStringLiteral("--checkpoint-dir"));
    if (spec.commandKind != CommandKind::Trainer || !m_request.resume.isCheckpointPath() ||
        checkpointDirectory.isEmpty())
        return step.done();
    emit progress(tr("Branching the run's checkpoints"), 0, 0);
    const CheckpointBranch branch{checkpointDirectory, m_request.resume.checkpoint(), m_request.attempt};
    RemoteCommand *run = m_connection->run(branch.command());
    const QString cannot = tr("cannot resume from %1: ").arg(m_request.resume.checkpoint());
    connect(run, &RemoteCommand::failed, step.context(),
            [step, cannot](const QString &error) { step.fail(cannot + error); });
    connect(run, &RemoteCommand::finished, step.context(), [this, branch, step, cannot](const ExecResult &result) {
        const StoreStatus recorded = branch.apply(*m_store, m_request.runId, result.out);
        if (result.exitCode != 0)
            return step.fail(cannot + QString::fromUtf8(result.err.trimmed()));
        if (!recorded.ok())
            return step.fail(cannot + recorded.error);
        step.done();
    });
}

void RunLauncher::claim(const StepHandle &step)
{
    const auto existing = m_store->run(m_request.runId);
    if (!existing.ok())
        return step.fail(existing.error);
    const LaunchRecords records = claimedLaunchRecords(m_request, m_rendered, existing.value);
    m_run = records.run;
    m_job = records.job;
    const auto claimed = m_store->claimAttempt(m_run, m_job, claimOwner(), claimLeaseMs,
                                               launchRequestJson(m_request, m_rendered.script));
    if (!claimed.ok())
        return step.fail(claimed.error);
    const QString attempt = tr("attempt %1 of run %2").arg(m_request.attempt).arg(m_request.runId.left(8));
    switch (claimed.value.outcome) {
    case AttemptClaim::Outcome::Claimed:
        return step.done();
    case AttemptClaim::Outcome::TakenOver:
        m_lookFirst = true; // its owner stopped: it may have submitted before it could record the job
        return step.done();
    case AttemptClaim::Outcome::HeldByAnother:
        m_elsewhere = tr("%1 is being submitted by another torchdeck (%2)").arg(attempt, claimed.value.owner);
        return step.fail(m_elsewhere);
    case AttemptClaim::Outcome::AlreadySubmitted:
        m_elsewhere = tr("%1 was submitted already, as job %2").arg(attempt, claimed.value.jobId);
        return step.fail(m_elsewhere);
    }
}

void RunLauncher::submit(const StepHandle &step)
{
    if (m_lookFirst)
        return lookFor(step);
    send(step);
}

SchedulerClient *RunLauncher::schedulerClient(const StepHandle &step)
{
    // Local jobs keep their state in the work directory's local/ folder.
    const QString localState = WorkLayout{m_workDirectory}.localStateDirectory();
    return new SchedulerClient(m_connection, m_request.profile.commands(localState), step.context());
}

void RunLauncher::send(const StepHandle &step)
{
    ++m_sends;
    SchedulerClient *client = schedulerClient(step);
    connect(client, &SchedulerClient::failed, step.context(), [this, client, step](const QString &error) {
        client->deleteLater();
        release(step, error); // refused, or never ran: nothing was submitted
    });
    connect(client, &SchedulerClient::submitInterrupted, step.context(), [this, client, step](const QString &error) {
        client->deleteLater();
        // sbatch may have made the job: look for it by its name once the connection is back, never submit blindly.
        emit progress(tr("The connection broke while submitting (%1): looking for the job").arg(error), 0, 0);
        whenReconnected(step, [this, step] { lookFor(step); });
    });
    connect(client, &SchedulerClient::submitted, step.context(), [this, client, step](const QString &jobId) {
        client->deleteLater();
        m_jobId = jobId;
        step.done();
    });
    client->submit(m_rendered.script, m_rendered.runDirectory,
                   RunLayout{m_rendered.runDirectory}.scriptName(m_request.attempt), m_request.after);
}

void RunLauncher::lookFor(const StepHandle &step)
{
    SchedulerClient *client = schedulerClient(step);
    const QString script =
        m_rendered.runDirectory + u'/' + RunLayout{m_rendered.runDirectory}.scriptName(m_request.attempt);
    connect(client, &SchedulerClient::failed, step.context(), [client, step](const QString &error) {
        client->deleteLater();
        // The claim stays: once its lease runs out, a front looks again before it submits.
        step.fail(tr("cannot tell whether the job was submitted: %1").arg(error));
    });
    connect(client, &SchedulerClient::found, step.context(), [this, client, step](const JobListResult &jobs) {
        client->deleteLater();
        if (jobs.jobs.isEmpty()) {
            if (m_sends >= 2)
                return step.fail(tr("the scheduler does not list the job submitted twice"));
            return send(step); // it never reached the scheduler
        }
        m_jobId = jobs.jobs.constFirst().id;
        emit progress(tr("Found job %1: it was submitted").arg(m_jobId), 0, 0);
        step.done();
    });
    client->findNamed(m_rendered.attemptSpec.name, script);
}

void RunLauncher::whenReconnected(const StepHandle &step, const std::function<void()> &then)
{
    if (!m_connection)
        return step.fail(tr("no connection"));
    if (m_connection->state() == ConnectionState::Connected)
        return then();
    auto link = std::make_shared<QMetaObject::Connection>();
    *link = connect(m_connection, &Connection::stateChanged, step.context(),
                    [this, link, step, then](ConnectionState state, const QString &detail) {
                        if (state == ConnectionState::Connected) {
                            disconnect(*link);
                            then();
                        } else if (state == ConnectionState::Failed || state == ConnectionState::Disconnected) {
                            disconnect(*link);
                            step.fail(tr("the connection to %1 did not come back (%2); whether the job was "
                                         "submitted is looked up when it does")
                                          .arg(m_request.profile.name, detail));
                        }
                    });
}

void RunLauncher::release(const StepHandle &step, const QString &error)
{
    const StoreStatus released = m_store->releaseClaim(m_request.runId, m_request.attempt, claimOwner());
    step.fail(released.ok() ? error : error + QStringLiteral("; ") + released.error);
}

void RunLauncher::record(const StepHandle &step)
{
    m_job = submittedJobRecord(m_job, m_rendered.attemptSpec, m_jobId, QDateTime::currentDateTimeUtc());
    // The run and its job in one transaction: a reader never sees a run without the job it waits on.
    const StoreStatus saved = m_store->recordClaimedJob(m_run, m_job, claimOwner());
    if (!saved.ok())
        return step.fail(tr("job %1 was submitted, but the run store failed: %2").arg(m_jobId, saved.error));
    step.done();
}

QString RunLauncher::claimOwner()
{
    static const QString owner = QStringLiteral("%1:%2:%3")
                                     .arg(QSysInfo::machineHostName())
                                     .arg(QCoreApplication::applicationPid())
                                     .arg(QUuid::createUuid().toString(QUuid::Id128).left(8));
    return owner;
}

} // namespace torchdeck::remote
