// ClusterSession's commands and shells in a run's job (`torchdeck shell`), in the allocation of the job that runs.
#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
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

// The job that runs `command` (nullopt: an interactive login shell) for the run, and the command line that does it
// there; or why not.
struct InJob {
    QString jobId;
    QString commandLine;
    QString error;
};
InJob inRunningJob(const QString &runId, const QList<JobRecord> &jobs, SchedulerKind scheduler,
                   const QString &runDirectory, const QString &node, const std::optional<QString> &command)
{
    // The job that speaks for the run: the one that runs, not the newest with an id (a chain's next one waits).
    const JobRecord *job = jobs.isEmpty() ? nullptr : &jobs.at(speakingJob(jobs));
    if (!job || job->jobId.isEmpty())
        return {{}, {}, ClusterSession::tr("run %1 has no job").arg(runId.left(8))};
    if (job->jobState() != JobState::Running)
        return {{},
                {},
                ClusterSession::tr("run %1's job %2 is %3, not running: a shell or command runs only inside a running "
                                   "job")
                    .arg(runId.left(8), job->jobId, job->state.toLower())};
    switch (scheduler) {
    case SchedulerKind::Slurm:
        return {
            job->jobId, command ? slurmJobCommand(job->jobId, node, *command) : slurmJobShell(job->jobId, node), {}};
    case SchedulerKind::Local: // the job is a process on the login node, in the run's directory
        if (!node.isEmpty())
            return {{}, {}, ClusterSession::tr("a local job runs on the login node alone: no --node")};
        return {job->jobId,
                QStringLiteral("cd %1 && ").arg(shellQuote(runDirectory)) +
                    (command ? QStringLiteral("bash -lc ") + shellQuote(*command) : QStringLiteral("exec bash -l")),
                {}};
    case SchedulerKind::Pbs:
        break;
    }
    return {{},
            {},
            ClusterSession::tr("a shell inside a PBS job is not supported yet (sites differ: pbs_attach, ssh to "
                               "the node)")};
}
} // namespace

void ClusterSession::inJobAfterPass(SessionOperation *operation, const QString &runId,
                                    const std::function<void()> &then)
{
    // The job's state as the scheduler says it now: one that just started is found running.
    SessionOperation *pass = refreshOperation({runId}, 0);
    connect(pass, &SessionOperation::failed, operation, &SessionOperation::fail);
    connect(pass, &SessionOperation::finished, operation, then);
}

SessionOperation *ClusterSession::jobCommand(const QString &runId, const QString &node, const QString &command)
{
    auto *operation = new SessionOperation(this);
    inJobAfterPass(operation, runId, [this, operation, runId, node, command] {
        const QList<JobRecord> jobs = m_store->jobs(runId).value;
        const InJob in = inRunningJob(runId, jobs, m_profile.scheduler,
                                      runDirectoryOn(name(), runId, jobs, workDirectory()), node, command);
        if (!in.error.isEmpty())
            return operation->fail(in.error);
        runCommand(
            operation, in.commandLine,
            [operation, jobId = in.jobId](int exitCode, const QByteArray &out, const QByteArray &err) {
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
    });
    return operation;
}

SessionOperation *ClusterSession::jobShell(const QString &runId, const QString &node, int cols, int rows)
{
    auto *operation = new SessionOperation(this);
    // Keys typed before the shell is open wait for it, and so does the latest window size.
    struct Pending {
        QPointer<remote::RemoteTunnel> shell;
        QByteArray keys;
        int cols = 0;
        int rows = 0;
    };
    auto pending = std::make_shared<Pending>();
    pending->cols = cols;
    pending->rows = rows;
    operation->setInputHandler([pending](const QByteArray &bytes, int newCols, int newRows) {
        if (newCols > 0 && newRows > 0) {
            pending->cols = newCols;
            pending->rows = newRows;
            if (pending->shell)
                pending->shell->resize(newCols, newRows);
        }
        if (bytes.isEmpty())
            return;
        if (pending->shell)
            pending->shell->write(bytes);
        else
            pending->keys += bytes;
    });
    operation->setStopHandler([pending, operation] {
        if (pending->shell)
            pending->shell->stop();
        operation->fail(tr("the shell was closed"));
    });
    inJobAfterPass(operation, runId, [this, operation, runId, node, pending] {
        const QList<JobRecord> jobs = m_store->jobs(runId).value;
        const InJob in = inRunningJob(runId, jobs, m_profile.scheduler,
                                      runDirectoryOn(name(), runId, jobs, workDirectory()), node, std::nullopt);
        if (!in.error.isEmpty())
            return operation->fail(in.error);
        remote::RemoteTunnel *terminal = m_parts->connection.terminal(in.commandLine, pending->cols, pending->rows);
        auto offset = std::make_shared<qint64>(0);
        auto exitCode = std::make_shared<int>(-1);
        connect(terminal, &remote::RemoteTunnel::data, operation, [operation, offset](const QByteArray &bytes) {
            operation->report(agent::DataEvent{*offset, bytes});
            *offset += bytes.size();
        });
        connect(terminal, &remote::RemoteTunnel::exited, operation, [exitCode](int status) { *exitCode = status; });
        connect(terminal, &remote::RemoteTunnel::closed, operation,
                [operation, exitCode, jobId = in.jobId](const QString &error) {
                    if (!error.isEmpty())
                        return operation->fail(error);
                    operation->finishWith(agent::JobShell::Reply{jobId, std::clamp(*exitCode, -1, 255)});
                });
        pending->shell = terminal;
        if (!pending->keys.isEmpty()) // the worker opens the terminal before it takes these
            terminal->write(std::exchange(pending->keys, {}));
    });
    return operation;
}

} // namespace torchdeck
