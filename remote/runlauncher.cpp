#include "remote/runlauncher.h"

#include "core/code/coderemote.h"
#include "core/jobs/arrayscript.h"
#include "core/jobs/jobspecvalidation.h"
#include "core/jobs/runlayout.h"
#include "core/remotepath.h"
#include "core/runs/checkpointbranch.h"
#include "core/runs/launchrecords.h"
#include "core/runs/pbsbuildjob.h"
#include "core/runs/runfiles.h"
#include "core/runs/slurmbuildjob.h"
#include "core/scheduler/jobstate.h"
#include "core/shellquote.h"
#include "core/store/claimowner.h"
#include "core/store/runstore.h"
#include "remote/codesync.h"
#include "remote/connection.h"
#include "remote/schedulerclient.h"
#include "remote/trainerdeployment.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QLocale>
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
        if (m_elsewhere.isEmpty()) {
            removeUnsentRunDirectories([this, error] { emit failed(error); });
        } else {
            emit handledElsewhere(m_elsewhere);
        }
    });
    connect(&m_steps, &StepSequence::finished, this, [this] {
        QList<LaunchResult> results;
        for (qsizetype i = 0; i < m_launches.size(); ++i) {
            const Launch &launch = m_launches.at(i);
            results.append({launch.request.runId, launch.request.attempt, jobIdOf(i), launch.rendered.runDirectory,
                            launch.rendered.script});
        }
        emit submitted(results);
    });
    // A spec that cannot render fails before anything is uploaded or built.
    m_steps.add({{}, {}, [this](const StepHandle &step) {
                     for (const Launch &launch : std::as_const(m_launches)) {
                         const LaunchRequest &request = launch.request;
                         const QList<JobSpecError> errors = request.script.isEmpty()
                                                                ? validateJobSpec(request.spec, request.profile.caps())
                                                                : QList<JobSpecError>{};
                         if (!errors.isEmpty())
                             return refuse(step, errors);
                     }
                     step.done();
                 }});
    m_steps.add(
        {{}, tr("asking the cluster's job limits"), [this](const StepHandle &step) { checkArrayLimits(step); }});
    m_steps.add({tr("Preparing the run directory"), tr("preparing the run directory"),
                 [this](const StepHandle &step) { prepareDirectory(step); }});
    m_steps.add({{}, tr("deploying the trainer"), [this](const StepHandle &step) { deploy(step); }});
    m_steps.add({{}, tr("uploading the code"), [this](const StepHandle &step) { syncCode(step); }});
    m_steps.add({{}, tr("making the run's copy of the code"), [this](const StepHandle &step) { linkCode(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { render(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { composeArray(step); }});
    m_steps.add({{}, tr("writing the array's scripts"), [this](const StepHandle &step) { stageArray(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { branchCheckpoints(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { claim(step); }});
    m_steps.add({tr("Submitting"), {}, [this](const StepHandle &step) { submit(step); }});
    m_steps.add({{}, {}, [this](const StepHandle &step) { record(step); }});
}

void RunLauncher::start(const LaunchRequest &request)
{
    startArray({request}, 0);
}

void RunLauncher::startArray(const QList<LaunchRequest> &requests, int maxRunning)
{
    m_array = requests.size() > 1;
    m_maxRunning = maxRunning;
    for (LaunchRequest request : requests) {
        if (request.runId.isEmpty())
            request.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        m_launches.append({request, {}, {}, {}});
    }
    if (m_launches.isEmpty())
        return emit failed(tr("nothing to submit"));
    m_steps.start();
}

QString RunLauncher::jobIdOf(qsizetype index) const
{
    return m_array ? arrayTaskJobId(first().profile.scheduler, m_jobId, int(index)) : m_jobId;
}

QString RunLauncher::arrayJobName() const
{
    // What the runs' names share ("ae" of "ae.lr0.1" and "ae.lr0.2"), tagged as a run's attempt is, so a reply
    // lost with the connection is looked for by it.
    QString shared = first().spec.name;
    for (const Launch &launch : std::as_const(m_launches)) {
        const QString &name = launch.request.spec.name;
        qsizetype same = 0;
        while (same < shared.size() && same < name.size() && shared.at(same) == name.at(same))
            ++same;
        shared.truncate(same);
    }
    while (shared.endsWith(u'.') || shared.endsWith(u'-') || shared.endsWith(u'_'))
        shared.chop(1);
    return attemptJobName(shared.isEmpty() ? QStringLiteral("array") : shared, first().runId, 0);
}

void RunLauncher::runCommand(const StepHandle &step, const QString &command, const QString &failure)
{
    RemoteCommand *run = m_connection->run(command);
    connect(run, &RemoteCommand::failed, step.context(),
            [step, failure](const QString &error) { step.fail(failure + error); });
    connect(run, &RemoteCommand::finished, step.context(), [step, failure](const ExecResult &result) {
        if (result.exitCode != 0)
            return step.fail(failure + QString::fromUtf8(result.err.trimmed()));
        step.done();
    });
}

void RunLauncher::checkArrayLimits(const StepHandle &step)
{
    if (!m_array && m_jobsAdded < 2)
        return step.done();
    if (!m_connection)
        return step.fail(tr("no connection"));
    const SchedulerKind scheduler = first().profile.scheduler;
    RemoteCommand *run = m_connection->run(arrayLimitsCommand(scheduler));
    connect(run, &RemoteCommand::failed, step.context(), [step](const QString &error) { step.fail(error); });
    connect(run, &RemoteCommand::finished, step.context(), [this, step, scheduler](const ExecResult &result) {
        const QString problem = m_array ? arrayLimitProblem(scheduler, result.out, int(m_launches.size()))
                                        : queueLimitProblem(result.out, m_jobsAdded);
        if (!problem.isEmpty())
            return step.fail(problem + tr("; nothing was submitted"));
        step.done();
    });
}

void RunLauncher::prepareDirectory(const StepHandle &step)
{
    if (!m_connection)
        return step.fail(tr("no connection"));
    // The same resolution as a preview's (core/jobs/runlayout.h), so the paths in the script agree.
    const ClusterProfile &profile = first().profile;
    // Each run directory is the user's alone (0700): its checkpoints, logs and metrics with it.
    QStringList directories;
    for (const Launch &launch : std::as_const(m_launches))
        directories.append(QStringLiteral("%1/runs/%2")
                               .arg(remotePathExpression(profile.workDirectory), shellQuote(launch.request.runId)));
    const QString command = QStringLiteral("(umask 077 && mkdir -p %1 && chmod 700 %1) && %2")
                                .arg(directories.join(u' '), workDirectoryCommand(profile.workDirectory));
    RemoteCommand *run = m_connection->run(command);
    connect(run, &RemoteCommand::failed, step.context(), [step](const QString &error) { step.fail(error); });
    connect(run, &RemoteCommand::finished, step.context(), [this, step](const ExecResult &result) {
        const QString work = QString::fromUtf8(result.out.trimmed());
        if (result.exitCode != 0 || !work.startsWith(u'/'))
            return step.fail(
                tr("cannot use the work directory %1 on %2: %3")
                    .arg(first().profile.workDirectory, first().profile.name, QString::fromUtf8(result.err.trimmed())));
        m_workDirectory = work;
        step.done();
    });
}

void RunLauncher::deploy(const StepHandle &step)
{
    const ClusterProfile &profile = first().profile;
    m_trainerBinary = profile.trainerBinary;
    if (first().spec.commandKind != CommandKind::Trainer || !profile.trainerBinary.isEmpty())
        return step.done();
    const QString trainerDirectory = WorkLayout{m_workDirectory}.trainerDirectory(embeddedTrainerHash());
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
    const JobSpec &spec = first().spec;
    // Once uploaded, a run keeps its snapshot: a resume runs the same code, whatever the folder holds now; the
    // runs of an array share one.
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
        for (Launch &launch : m_launches)
            launch.request.spec.codeSnapshot = result.snapshotId;
        emit output(tr("Code snapshot %1: %2 file(s), %3 uploaded (%4), the others already on the cluster\n")
                        .arg(result.snapshotId)
                        .arg(result.files)
                        .arg(result.uploadedFiles)
                        .arg(QLocale::c().formattedDataSize(result.uploadedBytes)));
        if (!result.linksOutside.isEmpty())
            emit output(tr("Note: %n file(s) of the code are links to outside its folder, sent as the files they point "
                           "to: %1\n",
                           nullptr, int(result.linksOutside.size()))
                            .arg(result.linksOutside.join(QStringLiteral(", "))));
        step.done();
    });
    sync->start();
}

void RunLauncher::linkCode(const StepHandle &step)
{
    const QString id = first().spec.codeSnapshot;
    if (first().spec.commandKind != CommandKind::Custom || id.isEmpty())
        return step.done();
    if (!isCodeSnapshotId(id))
        return step.fail(tr("not a code snapshot id: %1").arg(id));
    const WorkLayout work{m_workDirectory};
    QStringList links;
    for (const Launch &launch : std::as_const(m_launches))
        links.append(CodeStore{work.codeStore()}.linkCommand(id, work.runDirectory(launch.request.runId)));
    runCommand(step, QLatin1Char('(') + links.join(QStringLiteral(") && (")) + QLatin1Char(')'), {});
}

void RunLauncher::refuse(const StepHandle &step, const QList<JobSpecError> &errors)
{
    emit refused(errors);
    step.fail(tr("the job cannot be submitted:\n") + formatJobSpecErrors(errors));
}

void RunLauncher::render(const StepHandle &step)
{
    for (Launch &launch : m_launches) {
        launch.rendered = renderSubmission(launch.request, m_workDirectory, m_trainerBinary);
        if (!launch.rendered.ok())
            return refuse(step, launch.rendered.errors);
    }
    m_script = m_launches.constFirst().rendered.script;
    m_scriptDirectory = m_launches.constFirst().rendered.runDirectory;
    if (!m_array)
        emit rendered(m_script);
    step.done();
}

void RunLauncher::composeArray(const StepHandle &step)
{
    if (!m_array)
        return step.done();
    QList<ArrayTask> tasks;
    for (const Launch &launch : std::as_const(m_launches))
        tasks.append({launch.rendered.runDirectory, launch.rendered.script});
    const LaunchRequest &request = first();
    m_scriptDirectory = WorkLayout{m_workDirectory}.arrayDirectory(request.runId);
    const ArrayScript array = renderArrayScript(request.profile.caps(), tasks, arrayJobName(), m_scriptDirectory,
                                                RunLayout{{}}.scriptName(request.attempt), m_maxRunning);
    if (!array.ok())
        return step.fail(tr("the runs cannot go as one job array: %1").arg(array.error));
    m_script = array.script;
    emit rendered(m_script);
    step.done();
}

void RunLauncher::branchCheckpoints(const StepHandle &step)
{
    const Launch &launch = m_launches.constFirst();
    const JobSpec &spec = launch.rendered.attemptSpec;
    const QString checkpointDirectory = trainerOption(spec.trainerArgs, QStringLiteral("--checkpoint-dir"));
    // An array's runs are new: none resumes from a checkpoint.
    if (m_array || spec.commandKind != CommandKind::Trainer || !launch.request.resume.isCheckpointPath() ||
        checkpointDirectory.isEmpty())
        return step.done();
    emit progress(tr("Branching the run's checkpoints"), 0, 0);
    const LaunchRequest &request = launch.request;
    const CheckpointBranch branch{checkpointDirectory, request.resume.checkpoint(), request.attempt};
    RemoteCommand *run = m_connection->run(branch.command());
    const QString cannot = tr("cannot resume from %1: ").arg(request.resume.checkpoint());
    connect(run, &RemoteCommand::failed, step.context(),
            [step, cannot](const QString &error) { step.fail(cannot + error); });
    connect(run, &RemoteCommand::finished, step.context(), [this, branch, step, cannot](const ExecResult &result) {
        const StoreStatus recorded = branch.apply(*m_store, first().runId, result.out);
        if (result.exitCode != 0)
            return step.fail(cannot + QString::fromUtf8(result.err.trimmed()));
        if (!recorded.ok())
            return step.fail(cannot + recorded.error);
        step.done();
    });
}

void RunLauncher::claim(const StepHandle &step)
{
    for (qsizetype i = 0; i < m_launches.size(); ++i) {
        Launch &launch = m_launches[i];
        const LaunchRequest &request = launch.request;
        const auto existing = m_store->run(request.runId);
        if (!existing.ok()) {
            releaseClaims(int(i));
            return step.fail(existing.error);
        }
        const LaunchRecords records = claimedLaunchRecords(request, launch.rendered, existing.value);
        launch.run = records.run;
        launch.job = records.job;
        // A task's claim says its array: taken over, it looks for the array before submitting the run alone.
        LaunchRequest kept = request;
        if (m_array)
            kept.array = {arrayJobName(), m_scriptDirectory + u'/' + RunLayout{{}}.scriptName(request.attempt), int(i)};
        const auto claimed = m_store->claimAttempt(launch.run, launch.job, claimOwner(), claimLeaseMs,
                                                   launchRequestJson(kept, launch.rendered.script));
        if (!claimed.ok()) {
            releaseClaims(int(i));
            return step.fail(claimed.error);
        }
        const QString attempt = tr("attempt %1 of run %2").arg(request.attempt).arg(request.runId.left(8));
        switch (claimed.value.outcome) {
        case AttemptClaim::Outcome::Claimed:
            continue;
        case AttemptClaim::Outcome::TakenOver:
            m_lookFirst = true; // its owner stopped: it may have submitted before it could record the job
            continue;
        case AttemptClaim::Outcome::HeldByAnother:
            m_elsewhere = tr("%1 is being submitted by another torchdeck (%2)").arg(attempt, claimed.value.owner);
            break;
        case AttemptClaim::Outcome::AlreadySubmitted:
            m_elsewhere = tr("%1 was submitted already, as job %2").arg(attempt, claimed.value.jobId);
            break;
        }
        releaseClaims(int(i));
        return step.fail(m_elsewhere);
    }
    noteOnRuns(tr("submitting attempt %1").arg(first().attempt)); // never a blank while it is claimed
    step.done();
}

void RunLauncher::releaseClaims(int count)
{
    // Best effort, on the way to a failure already said: a claim left behind runs out with its lease.
    for (int i = 0; i < count; ++i)
        static_cast<void>(
            m_store->releaseClaim(m_launches.at(i).request.runId, m_launches.at(i).request.attempt, claimOwner()));
}

void RunLauncher::stageArray(const StepHandle &step)
{
    if (!m_array)
        return step.done();
    // <array directory>/<i> links to task i's run directory: Slurm writes the task's log through it.
    QStringList command{QStringLiteral("mkdir -p ") + shellQuote(m_scriptDirectory)};
    for (qsizetype i = 0; i < m_launches.size(); ++i)
        command.append(QStringLiteral("ln -sfn %1 %2")
                           .arg(shellQuote(m_launches.at(i).rendered.runDirectory),
                                shellQuote(m_scriptDirectory + u'/' + QString::number(i))));
    auto remaining = std::make_shared<qsizetype>(m_launches.size() + 1);
    const auto oneDone = [step, remaining] {
        if (--*remaining == 0)
            step.done();
    };
    RemoteCommand *links = m_connection->run(command.join(QStringLiteral(" && ")));
    connect(links, &RemoteCommand::failed, step.context(), [step](const QString &error) { step.fail(error); });
    connect(links, &RemoteCommand::finished, step.context(), [step, oneDone](const ExecResult &result) {
        if (result.exitCode != 0)
            return step.fail(QString::fromUtf8(result.err.trimmed()));
        oneDone();
    });
    for (const Launch &launch : std::as_const(m_launches)) {
        const RunLayout layout{launch.rendered.runDirectory};
        RemoteUpload *upload = m_connection->uploadData(
            launch.rendered.script.toUtf8(), layout.directory + u'/' + layout.scriptName(launch.request.attempt), 0700);
        connect(upload, &RemoteUpload::failed, step.context(), [step](const QString &error) { step.fail(error); });
        connect(upload, &RemoteUpload::finished, step.context(), oneDone);
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
    return new SchedulerClient(m_connection, first().profile.commands(localState), step.context());
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
    client->submit(m_script, m_scriptDirectory, RunLayout{{}}.scriptName(first().attempt), first().after);
}

void RunLauncher::removeUnsentRunDirectories(const std::function<void()> &then)
{
    // A new run refused on the way (by the scheduler, a code folder, a render) leaves no record: nor its directory.
    // One whose claim stays (its job may exist) keeps both, for the takeover. The failure is told once it is gone,
    // so that the same run sent again (the window keeps its id) makes its directory after this removal.
    if (!m_connection || m_workDirectory.isEmpty() || m_connection->state() != ConnectionState::Connected)
        return then();
    QStringList removals;
    for (const Launch &launch : std::as_const(m_launches)) {
        const auto stored = m_store->run(launch.request.runId);
        if (launch.request.attempt == 0 && stored.ok() && !stored.value)
            removals.append(removeRunDirectoryCommand(WorkLayout{m_workDirectory}.runDirectory(launch.request.runId),
                                                      launch.request.runId));
    }
    if (removals.isEmpty())
        return then();
    constexpr int removalDeadlineMs = 30000;
    RemoteCommand *removal = m_connection->run(
        QStringLiteral("{ %1; } >/dev/null 2>&1").arg(removals.join(QStringLiteral("; "))), removalDeadlineMs);
    connect(removal, &RemoteCommand::failed, this, [then](const QString &) { then(); });
    connect(removal, &RemoteCommand::finished, this, [then](const ExecResult &) { then(); });
}

void RunLauncher::release(const StepHandle &step, const QString &error)
{
    QStringList problems{error};
    for (const Launch &launch : std::as_const(m_launches)) {
        const StoreStatus released = m_store->releaseClaim(launch.request.runId, launch.request.attempt, claimOwner());
        if (!released.ok())
            problems.append(released.error);
    }
    step.fail(problems.join(QStringLiteral("; ")));
}

void RunLauncher::record(const StepHandle &step)
{
    QStringList problems;
    for (qsizetype i = 0; i < m_launches.size(); ++i) {
        Launch &launch = m_launches[i];
        launch.job =
            submittedJobRecord(launch.job, launch.rendered.attemptSpec, jobIdOf(i), QDateTime::currentDateTimeUtc());
        // The run and its job in one transaction: a reader never sees a run without the job it waits on. Every
        // task is recorded even when one fails: the others' jobs run.
        const StoreStatus saved = m_store->recordClaimedJob(launch.run, launch.job, claimOwner());
        if (!saved.ok())
            problems.append(
                tr("job %1 was submitted, but the run store failed: %2").arg(launch.job.jobId, saved.error));
    }
    if (!problems.isEmpty())
        return step.fail(problems.join(u'\n'));
    step.done();
}

QString RunLauncher::claimOwner()
{
    return thisProcessClaimOwner();
}

} // namespace torchdeck::remote
