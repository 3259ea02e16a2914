// RunTracker: what the jobs wrote, read from where the last pass stopped: metrics files, logger files, logs.
#include "core/metrics/logmetrics.h"
#include "core/metrics/metricsreader.h"
#include "core/remotepath.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "core/store/seriescache.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

#include <memory>

namespace torchdeck::remote {

void RunTracker::readAllMetrics(const StepHandle &step)
{
    // A running job's files stream (runtrackerfollowing.cpp); a job that waits has written nothing; what the
    // others wrote (one that ended: the rest of it, once) is read once (readTail). A job's metrics file, a custom
    // command's logger files, then its log: the log fills only the series the files lack (RunSeries), so the files
    // come first.
    const std::function<void()> read = afterAll(int(m_jobs.size()), [step] { step.done(); });
    QSet<QString> followed;
    for (const JobRecord &job : std::as_const(m_jobs)) {
        if (streams(job)) {
            for (const auto &[path, which] : followedFilesOf(job))
                followed.insert(path);
            readLoggerFiles(job, read);
        } else if (job.jobState() == JobState::Pending) {
            read();
        } else {
            unfollowJob(job);
            const JobRecord current = withStoredOffsets(job); // the stream may have stored more since the pass began
            readMetrics(current, [this, current, read] {
                readLoggerFiles(current, [this, current, read] { readLog(current, read); });
            });
        }
    }
    if (m_wholePass) // a pass over some runs leaves the others' streams be
        unfollowAllBut(followed);
}

JobRecord RunTracker::withStoredOffsets(const JobRecord &job) const
{
    const auto jobs = m_store->jobs(job.runId);
    if (jobs.ok()) {
        for (const JobRecord &stored : jobs.value) {
            if (stored.attempt == job.attempt) {
                JobRecord current = job;
                current.offsets = stored.offsets;
                return current;
            }
        }
    }
    return job;
}

void RunTracker::readMetrics(const JobRecord &job, const std::function<void()> &done)
{
    if (job.metricsPath.isEmpty())
        return done();
    readTail(job.metricsPath, job.offsets.metricsOffset, done,
             [this, job](const QByteArray &bytes) { metricsRead(job, bytes); });
}

std::optional<qint64> RunTracker::metricsRead(const JobRecord &job, const QByteArray &bytes)
{
    if (!bytes.isEmpty())
        markActive(job.runId);
    MetricsReader reader(MetricsReader::Format::JsonLines, job.offsets.metricsOffset);
    const QList<MetricEvent> events = reader.feed(bytes);
    if (reader.offset() == job.offsets.metricsOffset)
        return reader.offset();
    if (reader.counts().malformed > 0)
        note(tr("%1: %2 malformed line(s) skipped").arg(job.metricsPath).arg(reader.counts().malformed));
    const bool stored = storeEvents(job.runId, job.attempt, events, [&] {
        return m_store->appendMetrics(job.runId, job.attempt, events, job.offsets.metricsOffset, reader.offset(),
                                      RunStore::TailedFile::Metrics);
    });
    return stored ? std::optional(reader.offset()) : std::nullopt;
}

void RunTracker::readLog(const JobRecord &job, const std::function<void()> &done)
{
    if (!m_logPatterns.contains(job.runId) || job.stdoutPath.isEmpty())
        return done();
    readTail(job.stdoutPath, job.offsets.stdoutOffset, done,
             [this, job](const QByteArray &bytes) { logRead(job, bytes); });
}

std::optional<qint64> RunTracker::logRead(const JobRecord &job, const QByteArray &bytes)
{
    if (!bytes.isEmpty())
        markActive(job.runId);
    const bool ended = job.hasEnded();
    MetricsReader reader(MetricsReader::Format::LogPatterns, job.offsets.stdoutOffset);
    // The job's own patterns, then the cluster's, then the built-in ones.
    const QStringList own = m_logPatterns.value(job.runId) + m_profile.logPatterns;
    if (const QString problem = reader.patterns().setPatterns(jobLogPatterns(own)); !problem.isEmpty()) {
        noteOnRun(job.runId, tr("log patterns: %1").arg(problem));
        return std::nullopt;
    }
    const RunSeries *cached = m_series->series(job.runId);
    LogProgress progress = cached ? logProgressOf(*cached, job.attempt) : LogProgress{};
    resumeLogParser(&reader.patterns(), progress);
    QList<MetricEvent> events = reader.feed(bytes);
    if (ended)
        events += reader.finish(); // a last line without its newline
    if (reader.offset() == job.offsets.stdoutOffset)
        return reader.offset();
    events = firstOfEachRank(events, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0, &progress);
    for (MetricEvent &event : events)
        event.source = MetricSource::Log; // fills only the series no file has (RunSeries)
    const bool stored = storeEvents(job.runId, job.attempt, events, [&] {
        return m_store->appendMetrics(job.runId, job.attempt, events, job.offsets.stdoutOffset, reader.offset(),
                                      RunStore::TailedFile::Stdout);
    });
    return stored ? std::optional(reader.offset()) : std::nullopt;
}

void RunTracker::readTail(const QString &file, qint64 offset, const std::function<void()> &done,
                          const std::function<void(const QByteArray &)> &take)
{
    if (!m_connection)
        return done();
    if (m_streaming) { // all of it, over the SFTP channel: no command on the login node
        RemoteTail *read = m_connection->readFrom(file, offset);
        auto bytes = std::make_shared<QByteArray>();
        connect(read, &RemoteTail::data, &m_pass, [bytes](qint64, const QByteArray &chunk) { *bytes += chunk; });
        connect(read, &RemoteTail::ended, &m_pass, [bytes, done, take] {
            take(*bytes);
            done();
        });
        connect(read, &RemoteTail::failed, &m_pass, [this, read, file, done](const QString &error) {
            read->deleteLater();
            note(tr("reading %1: %2").arg(file, error));
            done();
        });
        return;
    }
    // All of it: a job that ended is not read again.
    const QString command =
        QStringLiteral("if test -f %1; then tail -c +%2 %1; fi").arg(remotePathExpression(file)).arg(offset + 1);
    RemoteCommand *run = m_connection->run(command);
    connect(run, &RemoteCommand::failed, &m_pass, [this, file, done](const QString &error) {
        note(tr("reading %1: %2").arg(file, error));
        done();
    });
    connect(run, &RemoteCommand::finished, &m_pass, [this, file, done, take](const ExecResult &result) {
        if (result.exitCode != 0)
            note(tr("reading %1: %2").arg(file, QString::fromUtf8(result.err.trimmed())));
        else
            take(result.out);
        done();
    });
}

bool RunTracker::storeEvents(const QString &runId, int attempt, const QList<MetricEvent> &events,
                             const std::function<StoreResult<bool>()> &append)
{
    // Cached before the append: a series first read from the store afterwards would hold these events already.
    m_series->series(runId);
    const StoreResult<bool> saved = append();
    if (!saved.ok()) {
        note(saved.error);
        return false;
    }
    if (!saved.value) {
        // Another front on this store stored these lines first: what is cached is read again from the store.
        m_series->forget(runId);
        emit seriesReset(runId);
        return false;
    }
    for (const MetricEvent &event : events) {
        if (event.kind != MetricEventKind::Checkpoint)
            continue;
        CheckpointRecord checkpoint{runId,       event.path, attempt, event.epoch, event.step,
                                    event.bytes, event.time, true,    false,       event.reason};
        const StoreStatus stored = m_store->saveCheckpoint(checkpoint);
        if (!stored.ok())
            note(stored.error);
    }
    m_series->apply(runId, attempt, events);
    if (!events.isEmpty())
        emit metricsArrived(runId, attempt, events);
    return true;
}

} // namespace torchdeck::remote
