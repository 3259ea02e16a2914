// ClusterSession's operations on runs: submit (new runs and chains), resume, cancel and requeue.
#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"
#include "core/jobs/runlayout.h"
#include "core/runs/restartdecision.h"
#include "core/runs/startestimate.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "session/clustersession.h"
#include "session/internal/runaction.h"
#include "session/internal/submission.h"

namespace torchdeck {

SessionOperation *ClusterSession::submit(const LaunchRequest &request, int chain)
{
    return startSubmission(new Submission(this, request, chain));
}

SessionOperation *ClusterSession::estimateStart(const QString &script)
{
    const QString command = startEstimateCommand(m_profile.scheduler, script);
    if (command.isEmpty()) {
        const QString why = m_profile.scheduler == SchedulerKind::Local
                                ? tr("a local run starts at once")
                                : tr("PBS publishes no start estimate before a submission");
        const qint64 now = m_profile.scheduler == SchedulerKind::Local ? QDateTime::currentMSecsSinceEpoch() : 0;
        return SessionOperation::alreadyFinishedWith(agent::EstimateStart::Reply{now, false, why}, this);
    }
    auto *operation = new SessionOperation(this);
    operation->reportProgress(tr("Asking %1 when the job would start").arg(name()), 0, 0);
    runCommand(
        operation, command,
        [this, operation](int exitCode, const QByteArray &out, const QByteArray &err) {
            const StartEstimate estimate = parseStartEstimate(name(), exitCode, out + err);
            operation->finishWith(agent::EstimateStart::Reply{
                estimate.start.isValid() ? estimate.start.toMSecsSinceEpoch() : 0, estimate.skipped, estimate.said});
        },
        [operation](const QString &error) { operation->fail(error); });
    return operation;
}

void ClusterSession::reportSubmission(Submission *submission, SessionOperation *operation)
{
    connect(submission, &Submission::progress, operation, &SessionOperation::reportProgress);
    connect(submission, &Submission::output, operation, &SessionOperation::reportOutput);
    connect(submission, &Submission::rendered, operation,
            [operation](const QString &script) { operation->report(agent::RenderedEvent{script}); });
    connect(submission, &Submission::refused, operation,
            [operation](const QList<JobSpecError> &errors) { operation->report(agent::JobErrorsEvent{errors}); });
    connect(submission, &Submission::jobSubmitted, operation,
            [operation](const LaunchResult &result) { operation->report(agent::JobEvent{result}); });
}

SessionOperation *ClusterSession::startSubmission(Submission *submission)
{
    auto *operation = new SessionOperation(this);
    reportSubmission(submission, operation);
    connect(submission, &Submission::failed, operation, &SessionOperation::fail);
    connect(submission, &Submission::finished, this, [this, operation, submission](const LaunchResult &result) {
        QStringList runs;
        for (const LaunchResult &each : submission->results())
            runs.append(each.runId);
        refresh(runs);
        operation->finishWith(agent::SubmitReply{result, submission->results(), {}}); // every run's: an array's tasks
    });
    // A submission in flight goes on when its front goes away (its job may be on its way to the scheduler);
    // only a stop from the front ends it.
    operation->setStopHandler([submission] { submission->stop(); });
    submission->start();
    return operation;
}

SessionOperation *ClusterSession::resume(const QString &runId, const ResumeFrom &from, const QString &epochs,
                                         const QString &moving)
{
    const auto run = m_store->run(runId);
    if (!run.ok() || !run.value)
        return SessionOperation::alreadyFailed(run.ok() ? tr("no run %1").arg(runId.left(8)) : run.error, this);
    QString error;
    const auto request = resumeRequest(*m_store, m_profile, *run.value, from, epochs, &error, moving);
    return request ? submit(*request) : SessionOperation::alreadyFailed(error, this);
}

SessionOperation *ClusterSession::autoRestartOperation(const QString &runId, bool enabled)
{
    const StoreStatus saved = setAutoRestart(runId, enabled);
    if (!saved.ok())
        return SessionOperation::alreadyFailed(saved.error, this);
    if (!isRestarting())
        return SessionOperation::alreadyFinishedWith(agent::AutoRestart::Reply{}, this);
    auto *operation = new SessionOperation(this);
    connect(this, &ClusterSession::restarted, operation, [runId, operation](const QString &run, const QString &jobId) {
        if (run == runId)
            operation->finishWith(agent::AutoRestart::Reply{jobId, {}});
    });
    connect(this, &ClusterSession::restartFailed, operation,
            [runId, operation](const QString &run, const QString &error) {
                if (run == runId)
                    operation->finishWith(agent::AutoRestart::Reply{{}, error});
            });
    return operation;
}

namespace {
SessionOperation *runAction(ClusterSession *session, RunAction *action)
{
    auto *operation = new SessionOperation(session);
    const QStringList jobs = action->jobIds();
    QObject::connect(action, &RunAction::failed, operation, &SessionOperation::fail);
    QObject::connect(action, &RunAction::finished, operation, [operation, jobs](const QString &message) {
        operation->finishWith(agent::RunActionReply{message, jobs});
    });
    action->start();
    return operation;
}
} // namespace

SessionOperation *ClusterSession::cancel(const QStringList &runIds)
{
    QList<QStringList> jobIds;
    QString localState;
    for (const QString &runId : runIds) {
        const auto jobs = m_store->jobs(runId);
        QStringList ofRun;
        for (const JobRecord &job : jobs.value) {
            localState = localStateDirectoryOf(job.stdoutPath);
            if (!job.hasEnded() && !job.jobId.isEmpty())
                ofRun.prepend(job.jobId); // the newest first: a cancelled attempt would start the next
        }
        if (!ofRun.isEmpty())
            jobIds.append(ofRun);
    }
    return runAction(this,
                     new RunAction(this, SchedulerAction::Cancel, runIds, jobIds, m_profile.commands(localState)));
}

SessionOperation *ClusterSession::jobAction(SchedulerAction action, const QString &runId, const QString &jobId)
{
    const auto jobs = m_store->jobs(runId);
    QString localState;
    for (const JobRecord &job : jobs.value)
        localState = localStateDirectoryOf(job.stdoutPath);
    return runAction(this, new RunAction(this, action, {runId}, {{jobId}}, m_profile.commands(localState)));
}

SessionOperation *ClusterSession::requeue(const QString &runId)
{
    const auto jobs = m_store->jobs(runId);
    QStringList running;
    if (jobs.ok() && !jobs.value.isEmpty()) {
        const JobRecord &job = jobs.value.at(speakingJob(jobs.value));
        if (!job.hasEnded())
            running.append(job.jobId);
    }
    return runAction(this, new RunAction(this, SchedulerAction::Requeue, {runId}, {running}, m_profile.commands()));
}

} // namespace torchdeck
