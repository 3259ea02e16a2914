// RunTracker: a job's logs kept on this machine once it ended (core/store/keptlogs.h), so that they outlive the
// cluster's copy and the cluster itself.
#include "core/remotepath.h"
#include "core/store/keptlogs.h"
#include "core/store/runstore.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

#include <memory>

namespace torchdeck::remote {

namespace {
QString keptKey(const JobRecord &job)
{
    return job.runId + u'/' + QString::number(job.attempt);
}

// The file's size on a line, then its last kKeptLogBytes; "-1" alone when there is no such file.
QString keepCommand(const QString &path)
{
    return QStringLiteral("f=%1; if test -f \"$f\"; then wc -c < \"$f\"; tail -c %2 -- \"$f\"; else echo -1; fi")
        .arg(remotePathExpression(path))
        .arg(kKeptLogBytes);
}
} // namespace

void RunTracker::keepEndedLogs(const StepHandle &step)
{
    QList<JobRecord> ended;
    for (const JobRecord &job : std::as_const(m_jobs))
        if (job.hasEnded() && !job.jobId.isEmpty() && !job.stdoutPath.isEmpty() && !m_logsKept.contains(keptKey(job)))
            ended.append(job);
    const std::function<void()> kept = afterAll(int(ended.size()), [step] { step.done(); });
    for (const JobRecord &job : std::as_const(ended))
        keepLogs(job, kept);
}

void RunTracker::keepLogs(const JobRecord &job, const std::function<void()> &done)
{
    auto log = std::make_shared<KeptLog>();
    auto present = std::make_shared<bool>(false);
    auto unread = std::make_shared<bool>(false); // a read failed (the connection): tried again by the next pass
    // Read one file into `bytes`/`size`; then `next`.
    const auto read = [this, present, unread](const QString &path, QByteArray *bytes, qint64 *size,
                                              const std::function<void()> &next) {
        if (path.isEmpty())
            return next();
        if (!m_connection) {
            *unread = true;
            return next();
        }
        RemoteCommand *run = m_connection->run(keepCommand(path));
        connect(run, &RemoteCommand::failed, &m_pass, [unread, next](const QString &) {
            *unread = true;
            next();
        });
        connect(run, &RemoteCommand::finished, &m_pass, [present, bytes, size, next](const ExecResult &result) {
            const qsizetype newline = result.out.indexOf('\n');
            bool ok = false;
            const qint64 whole = result.out.left(newline).trimmed().toLongLong(&ok);
            if (result.exitCode == 0 && ok && whole >= 0 && newline >= 0) {
                *present = true;
                *bytes = result.out.mid(newline + 1);
                *size = whole > kKeptLogBytes ? whole : -1;
            }
            next();
        });
    };
    const bool ownErr = !job.stderrPath.isEmpty() && job.stderrPath != job.stdoutPath;
    read(job.stdoutPath, &log->out, &log->outSize, [this, job, log, present, unread, ownErr, read, done] {
        read(ownErr ? job.stderrPath : QString(), &log->err, &log->errSize, [this, job, log, present, unread, done] {
            if (*unread)
                return done();
            // Read once per job in this agent's life: a job that wrote no log keeps none.
            m_logsKept.insert(keptKey(job));
            QString error;
            if (*present && !writeKeptLog(m_store->path(), job.runId, job.attempt, *log, &error))
                note(error);
            done();
        });
    });
}

} // namespace torchdeck::remote
