// RunTracker: the files a custom command's own logger writes under its run directory (TensorBoard event
// files, Lightning's metrics.csv), found each pass by one command for all runs, and read from where the last
// pass stopped (core/runs/loggerfilediff.h).
#include "core/runs/loggerfilediff.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

namespace torchdeck::remote {

namespace {
QString runDirectoryOf(const JobRecord &job)
{
    const QString directory = job.metricsPath.section(u'/', 0, -2);
    return directory.endsWith(QStringLiteral("/runs/") + job.runId) ? directory : QString();
}
} // namespace

void RunTracker::findLoggerFiles(const StepHandle &step)
{
    // The custom runs whose jobs may have written (not only waited), where the run directory is known: one `find`
    // for them all.
    QHash<QString, QString> runOfDirectory;
    QStringList directories;
    for (const JobRecord &job : std::as_const(m_jobs)) {
        const QString directory = runDirectoryOf(job);
        if (!m_logPatterns.contains(job.runId) || job.jobState() == JobState::Pending || directory.isEmpty() ||
            runOfDirectory.contains(directory))
            continue;
        runOfDirectory.insert(directory, job.runId);
        directories.append(directory);
    }
    if (directories.isEmpty() || !m_connection)
        return step.done();
    RemoteCommand *run = m_connection->run(loggerFilesFindCommand(directories));
    connect(run, &RemoteCommand::failed, step.context(), [this, step](const QString &error) {
        note(tr("looking for logger files: %1").arg(error));
        step.done();
    });
    connect(run, &RemoteCommand::finished, step.context(),
            [this, step, runOfDirectory, directories](const ExecResult &result) {
                const auto found = parseFoundLoggerFiles(result.out, directories);
                for (auto it = found.cbegin(); it != found.cend(); ++it)
                    m_loggerFilesFound.insert(runOfDirectory.value(it.key()), it.value());
                step.done();
            });
}

void RunTracker::readLoggerFiles(const JobRecord &job, const std::function<void()> &done)
{
    // Once a pass per custom run, for its first unfinished job: what this pass's find found.
    const auto found = m_loggerFilesFound.constFind(job.runId);
    if (found == m_loggerFilesFound.cend() || m_loggerFilesRead.contains(job.runId) || !m_connection)
        return done();
    m_loggerFilesRead.insert(job.runId);
    const auto stored = m_store->loggerFiles(job.runId);
    if (!stored.ok()) {
        note(stored.error);
        return done();
    }
    readLoggerFile(job.runId, changedLoggerFiles(*found, stored.value, job.attempt), done);
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
