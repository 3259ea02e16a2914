// RunTracker: the files a custom command's own logger writes under its run directory (TensorBoard event
// files, Lightning's metrics.csv), found each pass and read from where the last pass stopped
// (core/runs/loggerfilediff.h).
#include "core/runs/loggerfilediff.h"
#include "core/store/runstore.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

namespace torchdeck::remote {

void RunTracker::readLoggerFiles(const JobRecord &job, const std::function<void()> &done)
{
    // Once a pass per custom run, for its first unfinished job; only where the run directory is known.
    const QString runDirectory = job.metricsPath.section(u'/', 0, -2);
    if (!m_logPatterns.contains(job.runId) || m_loggerFilesRead.contains(job.runId) || !m_connection ||
        !runDirectory.endsWith(QStringLiteral("/runs/") + job.runId))
        return done();
    m_loggerFilesRead.insert(job.runId);
    RemoteCommand *run = m_connection->run(loggerFilesFindCommand(runDirectory));
    connect(run, &RemoteCommand::failed, &m_pass, [this, runDirectory, done](const QString &error) {
        note(tr("looking for logger files in %1: %2").arg(runDirectory, error));
        done();
    });
    connect(run, &RemoteCommand::finished, &m_pass, [this, job, done](const ExecResult &result) {
        const auto stored = m_store->loggerFiles(job.runId);
        if (!stored.ok()) {
            note(stored.error);
            return done();
        }
        readLoggerFile(job.runId, changedLoggerFiles(parseFoundLoggerFiles(result.out), stored.value, job.attempt),
                       done);
    });
}

void RunTracker::readLoggerFile(const QString &runId, QList<LoggerFileChange> files, const std::function<void()> &done)
{
    if (files.isEmpty() || !m_connection)
        return done();
    const LoggerFileChange change = files.takeFirst();
    const auto next = [this, runId, files, done] { readLoggerFile(runId, files, done); };
    readTail(change.found.path, loggerFileReadOffset(change), next,
             [this, runId, change](const QByteArray &bytes) { loggerFileRead(runId, change, bytes); });
}

void RunTracker::loggerFileRead(const QString &runId, const LoggerFileChange &change, const QByteArray &bytes)
{
    if (!bytes.isEmpty())
        markActive(runId);
    const LoggerFileRead read =
        readLoggerFileBytes(change, bytes, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0);
    if (!read.skipped.isEmpty())
        note(read.skipped);
    if (!read.runMessage.isEmpty())
        noteOnRun(runId, read.runMessage);
    if (!read.changed)
        return;
    storeEvents(runId, read.after.attempt, read.events,
                [&] { return m_store->appendLoggerFileMetrics(runId, change.before, read.after, read.events); });
}

} // namespace torchdeck::remote
