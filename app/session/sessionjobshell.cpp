// ClusterSession's command in a run's job: `torchdeck shell RUN --command CMD`, in the allocation of the job that runs.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/runs/restartdecision.h"
#include "core/runs/runfiles.h"
#include "core/scheduler/jobstep.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "session/internal/sessioninternals.h"

namespace torchdeck {

namespace {
constexpr int jobCommandDeadlineMs = 10 * 60 * 1000;
constexpr qsizetype outputLimit = qsizetype(16) << 20; // within one frame of the agent's socket
} // namespace

SessionOperation *ClusterSession::jobCommand(const QString &runId, const QString &node, const QString &command)
{
    auto *operation = new SessionOperation(this);
    // The job's state as the scheduler says it now: one that just started is found running.
    SessionOperation *pass = refreshOperation({runId}, 0);
    connect(pass, &SessionOperation::failed, operation, &SessionOperation::fail);
    connect(pass, &SessionOperation::finished, operation,
            [this, operation, runId, node, command] { runInJob(operation, runId, node, command); });
    return operation;
}

void ClusterSession::runInJob(SessionOperation *operation, const QString &runId, const QString &node,
                              const QString &command)
{
    const auto jobs = m_store->jobs(runId);
    if (!jobs.ok())
        return operation->fail(jobs.error);
    // The job that speaks for the run: the one that runs, not the newest with an id (a chain's next one waits).
    const JobRecord *job = jobs.value.isEmpty() ? nullptr : &jobs.value.at(speakingJob(jobs.value));
    if (!job || job->jobId.isEmpty())
        return operation->fail(tr("run %1 has no job on %2").arg(runId.left(8), name()));
    if (job->jobState() != JobState::Running)
        return operation->fail(tr("run %1's job %2 is %3, not running: a command runs only inside a running job")
                                   .arg(runId.left(8), job->jobId, job->state.toLower()));
    QString remote;
    switch (m_profile.scheduler) {
    case SchedulerKind::Slurm:
        remote = slurmJobCommand(job->jobId, node, command);
        break;
    case SchedulerKind::Local: // the job is a process on the login node, in the run's directory
        if (!node.isEmpty())
            return operation->fail(tr("a local job runs on the login node alone: no --node"));
        remote = QStringLiteral("cd %1 && bash -lc %2")
                     .arg(shellQuote(runDirectoryOf(runId, jobs.value, workDirectory())), shellQuote(command));
        break;
    case SchedulerKind::Pbs:
        return operation->fail(
            tr("a command inside a PBS job is not supported yet (sites differ: pbs_attach, ssh to the node)"));
    }
    const QString jobId = job->jobId;
    runCommand(
        operation, remote,
        [operation, jobId](int exitCode, const QByteArray &out, const QByteArray &err) {
            agent::JobCommand::Reply reply{jobId, std::clamp(exitCode, -1, 255), out.left(outputLimit),
                                           err.left(outputLimit)};
            if (out.size() > outputLimit || err.size() > outputLimit)
                reply.err += tr("\n(torchdeck: the output was cut at %1 MiB)\n").arg(outputLimit >> 20).toUtf8();
            operation->finishWith(reply);
        },
        [this, operation, runId](const QString &error) {
            operation->fail(tr("run %1 on %2: %3").arg(runId.left(8), name(), error));
        },
        jobCommandDeadlineMs);
}

} // namespace torchdeck
