// RunTracker: a job the scheduler forgot (it answered, and listed it neither in its queue nor in its history: it
// left the controller's memory and the cluster keeps no accounting) is settled from its own record in the run's
// directory (core/runs/forgottenjob.h). One command reads the records of all such jobs of the pass.
#include "core/jobs/runlayout.h"
#include "core/runs/forgottenjob.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

namespace torchdeck::remote {

namespace {
const QByteArray marker = QByteArrayLiteral("@@torchdeck-trace ");
} // namespace

void RunTracker::settleForgottenJobs(const StepHandle &step)
{
    if (!m_pollComplete || m_workDirectory.isEmpty() || !m_connection)
        return step.done();
    QList<qsizetype> forgotten;
    QStringList reads;
    for (qsizetype i = 0; i < m_jobs.size(); ++i) {
        const JobRecord &job = m_jobs.at(i);
        if (m_polled.contains(job.jobId))
            continue;
        forgotten.append(i);
        const QString trace = RunLayout{WorkLayout{m_workDirectory}.runDirectory(job.runId)}.traceFile(job.attempt);
        reads.append(QStringLiteral("echo '%1%2'; cat -- %3 2>/dev/null")
                         .arg(QString::fromLatin1(marker))
                         .arg(i)
                         .arg(shellQuote(trace)));
    }
    if (forgotten.isEmpty())
        return step.done();
    RemoteCommand *read = m_connection->run(reads.join(QStringLiteral("; ")) + QStringLiteral("; true"));
    connect(read, &RemoteCommand::failed, step.context(), [this, step](const QString &error) {
        note(tr("reading the records of jobs the scheduler forgot: %1").arg(error));
        step.done();
    });
    connect(read, &RemoteCommand::finished, step.context(), [this, step](const ExecResult &result) {
        QHash<qsizetype, QByteArray> traces;
        qsizetype current = -1;
        for (const QByteArray &line : result.out.split('\n')) {
            if (line.startsWith(marker)) {
                bool ok = false;
                current = line.mid(marker.size()).toLongLong(&ok);
                if (!ok || current < 0 || current >= m_jobs.size())
                    current = -1;
                else
                    traces.insert(current, {});
            } else if (current >= 0) {
                traces[current] += line + '\n';
            }
        }
        for (auto it = traces.cbegin(); it != traces.cend(); ++it)
            settleForgottenJob(m_jobs[it.key()], parseJobTrace(it.value()));
        step.done();
    });
}

void RunTracker::settleForgottenJob(JobRecord &job, const JobTrace &trace)
{
    const std::optional<ForgottenJobEnd> end = forgottenJobEnd(trace, job.jobId);
    if (!end)
        return;
    job.state = jobStateName(end->state);
    job.exitCode = end->exitCode;
    m_jobsChanged = true;
    if (const StoreStatus saved = m_store->updateJobState(job.runId, job.attempt, job.state, job.exitCode); !saved.ok())
        note(saved.error);
    noteOnRun(job.runId, end->message);
}

} // namespace torchdeck::remote
