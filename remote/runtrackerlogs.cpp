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

// One file's answer to keepCommand.
struct KeptFile {
    bool read = false;    // the command answered (not lost with the connection)
    bool present = false; // with the file's bytes
    QByteArray bytes;
    qint64 wholeSize = -1; // where only its end came
};
} // namespace

bool RunTracker::isLogUnnoted(const JobRecord &job) const
{
    const QString key = keptKey(job);
    return job.hasEnded() && !job.jobId.isEmpty() && !job.stdoutPath.isEmpty() && !m_logsKept.contains(key) &&
           !m_logsToKeep.contains(key);
}

void RunTracker::noteLogsToKeep(const RunRecord &run, const JobRecord &job)
{
    // A store from before logs were kept is not read back to its first run: runs written to lately only.
    constexpr qint64 recentSeconds = qint64(14) * 24 * 3600;
    const QString key = keptKey(job);
    if (!isLogUnnoted(job))
        return;
    if (run.updated.secsTo(QDateTime::currentDateTimeUtc()) > recentSeconds ||
        keptLogSettled(m_store->path(), job.runId, job.attempt))
        m_logsKept.insert(key); // asked of the disk once per agent
    else
        m_logsToKeep.insert(key, job);
}

void RunTracker::keepEndedLogs(const std::function<void()> &done)
{
    // A few jobs a pass: after a long stop the keep does not flood the login node, nor hold the pass up.
    constexpr qsizetype perPass = 8;
    // The jobs this pass saw end, those whose read failed before, and the store's ended jobs with nothing kept.
    for (const JobRecord &job : std::as_const(m_jobs))
        if (isLogUnnoted(job))
            m_logsToKeep.insert(keptKey(job), job);
    const QList<JobRecord> jobs = m_logsToKeep.values().mid(0, perPass);
    const std::function<void()> kept = afterAll(int(jobs.size()), done);
    for (const JobRecord &job : jobs)
        keepLogs(job, kept);
}

void RunTracker::keepLogs(const JobRecord &job, const std::function<void()> &done)
{
    const auto read = [this](const QString &path, const std::shared_ptr<KeptFile> &file,
                             const std::function<void()> &next) {
        if (path.isEmpty()) {
            file->read = true;
            return next();
        }
        if (!m_connection)
            return next();
        RemoteCommand *run = m_connection->run(keepCommand(path));
        connect(run, &RemoteCommand::failed, &m_pass, [next](const QString &) { next(); });
        connect(run, &RemoteCommand::finished, &m_pass, [file, next](const ExecResult &result) {
            const qsizetype newline = result.out.indexOf('\n');
            bool ok = false;
            const qint64 whole = result.out.left(newline).trimmed().toLongLong(&ok);
            file->read = true; // answered: a file it cannot read is kept as none, not asked for again
            file->present = result.exitCode == 0 && ok && newline >= 0 && whole >= 0;
            if (file->present) {
                file->bytes = result.out.mid(newline + 1);
                file->wholeSize = whole > kKeptLogBytes ? whole : -1;
            }
            next();
        });
    };
    auto out = std::make_shared<KeptFile>();
    auto err = std::make_shared<KeptFile>();
    const bool ownErr = !job.stderrPath.isEmpty() && job.stderrPath != job.stdoutPath;
    read(job.stdoutPath, out, [this, job, out, err, ownErr, read, done] {
        read(ownErr ? job.stderrPath : QString(), err, [this, job, out, err, done] {
            if (!out->read || !err->read) // the connection: the next pass tries again
                return done();
            m_logsToKeep.remove(keptKey(job));
            m_logsKept.insert(keptKey(job));
            // A run deleted meanwhile keeps nothing; a job that wrote no log is marked so, not asked of again.
            const auto run = m_store->run(job.runId);
            if (!run.ok() || !run.value)
                return done();
            QString error;
            const bool written =
                out->present ? writeKeptLog(m_store->path(), job.runId, job.attempt,
                                            KeptLog{out->bytes, err->bytes, out->wholeSize, err->wholeSize}, &error)
                             : markNoKeptLog(m_store->path(), job.runId, job.attempt, &error);
            if (!written)
                note(error);
            done();
        });
    });
}

} // namespace torchdeck::remote
