// RunTracker: a running job's metrics file (and a custom command's log) followed as it is written, over the
// connection's SFTP channel (Connection::tail), instead of a command per file and pass. The store's offset
// stays the truth: bytes are taken only where they continue it, whole lines only, and a job that ends is read
// once more from the stored offset (runtrackerreading.cpp), so nothing is lost or stored twice.
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

namespace torchdeck::remote {

namespace {
constexpr qint64 mostPendingBytes = qint64(16) * 1024 * 1024; // a "line" longer than this is no metrics line
// A shown run's file. Over SFTP: a stat every 5 ms while lines come, every 50 ms after 5 s without one, about a CPU
// second a minute of the login node's sshd while someone looks. The login-node follower looks at a file quiet for T
// every T/8, from 5 ms up to 250 ms: a line is on the chart at most an eighth of the gap before it late, for a
// fraction of plain polling's CPU (scripts/bench-remote). The other runs' files wait for the poll.
constexpr TailPace shownPace{5, 50, 5, 250};
} // namespace

void RunTracker::setFollowPaces(const QStringList &shownRunIds, int othersMs)
{
    if (shownRunIds == m_shownRuns && othersMs == m_othersFollowMs)
        return;
    m_shownRuns = shownRunIds;
    m_othersFollowMs = othersMs;
    for (const FollowedFile &file : std::as_const(m_followed)) {
        if (file.tail)
            file.tail->setPace(paceOf(file.job.runId));
    }
}

TailPace RunTracker::paceOf(const QString &runId) const
{
    return m_shownRuns.contains(runId) ? shownPace : TailPace{m_othersFollowMs, m_othersFollowMs};
}

bool RunTracker::streams(const JobRecord &job)
{
    // Only while the job runs: before, nothing is written; after, the pass reads what is left, once.
    if (!m_connection || !m_streaming || job.jobState() != JobState::Running)
        return false;
    const QList<std::pair<QString, RunStore::TailedFile>> files = followedFilesOf(job);
    for (const auto &[path, which] : files) {
        if (m_unfollowable.contains(path))
            return false;
    }
    for (const auto &[path, which] : files)
        follow(job, which, path);
    return true;
}

QList<std::pair<QString, RunStore::TailedFile>> RunTracker::followedFilesOf(const JobRecord &job) const
{
    QList<std::pair<QString, RunStore::TailedFile>> files;
    if (!job.metricsPath.isEmpty())
        files.append({job.metricsPath, RunStore::TailedFile::Metrics});
    if (m_logPatterns.contains(job.runId) && !job.stdoutPath.isEmpty())
        files.append({job.stdoutPath, RunStore::TailedFile::Stdout});
    return files;
}

void RunTracker::follow(const JobRecord &job, RunStore::TailedFile which, const QString &path)
{
    if (m_followed.contains(path))
        return;
    const qint64 offset = which == RunStore::TailedFile::Metrics ? job.offsets.metricsOffset : job.offsets.stdoutOffset;
    RemoteTail *tail = m_connection->tail(path, offset, paceOf(job.runId));
    m_followed.insert(path, {job, which, offset, {}, tail});
    connect(tail, &RemoteTail::data, this,
            [this, path](qint64 at, const QByteArray &bytes) { followedData(path, at, bytes); });
    connect(tail, &RemoteTail::reset, this, [this, path](const QString &reason) {
        // Rewritten under the job: what was stored stays; each pass reads on from the offset.
        note(tr("%1: the stored part stays, the rest is read once per poll").arg(reason.section(u':', 0, 0)));
        m_unfollowable.insert(path);
        unfollow(path);
    });
    connect(tail, &RemoteTail::failed, this, [this, path, tail](const QString &error) {
        tail->deleteLater();
        note(tr("following %1: %2; read once per poll from now on").arg(path, error));
        m_unfollowable.insert(path);
        m_followed.remove(path);
    });
}

void RunTracker::unfollow(const QString &path)
{
    const auto it = m_followed.constFind(path);
    if (it == m_followed.cend())
        return;
    if (it->tail)
        it->tail->stop(); // no more data from it: the relay forgets it at once
    m_followed.erase(it);
}

void RunTracker::unfollowJob(const JobRecord &job)
{
    for (const auto &[path, which] : followedFilesOf(job))
        unfollow(path);
}

void RunTracker::unfollowAllBut(const QSet<QString> &paths)
{
    for (const QString &path : m_followed.keys()) {
        if (!paths.contains(path))
            unfollow(path);
    }
}

void RunTracker::followedData(const QString &path, qint64 at, const QByteArray &bytes)
{
    const auto it = m_followed.find(path);
    if (it == m_followed.end())
        return;
    FollowedFile &file = *it;
    if (at != file.stored + file.pending.size() || file.pending.size() + bytes.size() > mostPendingBytes) {
        note(tr("%1: the stream lost its place; read once per poll from now on").arg(path));
        m_unfollowable.insert(path);
        return unfollow(path);
    }
    file.pending += bytes;
    JobRecord job = file.job;
    job.offsets.metricsOffset = job.offsets.stdoutOffset = file.stored;
    const QByteArray pending = file.pending;
    const std::optional<qint64> taken =
        file.which == RunStore::TailedFile::Metrics ? metricsRead(job, pending) : logRead(job, pending);
    const auto still = m_followed.find(path); // the fronts heard of the events: they may have changed it
    if (still == m_followed.end())
        return;
    if (!taken) // not stored (another writer of the store was first, or it failed): the next pass goes on from it
        return unfollow(path);
    still->pending.remove(0, *taken - still->stored);
    still->stored = *taken;
}

} // namespace torchdeck::remote
