// RunTracker: the files a custom command's own logger writes under its run directory (TensorBoard event
// files, Lightning's metrics.csv), found each pass and read from where the last pass stopped.
#include "core/metrics/lightningcsv.h"
#include "core/metrics/scalarmapping.h"
#include "core/metrics/tfeventreader.h"
#include "core/remotepath.h"
#include "core/shellquote.h"
#include "core/store/seriescache.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

namespace torchdeck::remote {

namespace {

constexpr int findDepth = 6; // <run>/code/lightning_logs/version_0/metrics.csv, <run>/runs/<date>/events...

bool isCsv(const QString &path)
{
    return path.endsWith(QStringLiteral("/metrics.csv"));
}

// "<size> <path>\0" per file, as find printed them.
QList<LoggerFileRecord> foundFiles(const QByteArray &out)
{
    QList<LoggerFileRecord> files;
    for (const QByteArray &entry : out.split('\0')) {
        const qsizetype space = entry.indexOf(' ');
        if (space <= 0)
            continue;
        bool ok = false;
        const qint64 size = entry.left(space).toLongLong(&ok);
        if (ok)
            files.append({QString::fromUtf8(entry.mid(space + 1)), 0, 0, size});
    }
    return files;
}

void stampReadTime(QList<MetricEvent> *events)
{
    const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    for (MetricEvent &event : *events) {
        event.source = MetricSource::LoggerFiles;
        if (!MetricEvent::has(event.time))
            event.time = now;
    }
}

} // namespace

void RunTracker::readLoggerFiles(const JobRecord &job, const std::function<void()> &done)
{
    // Once a pass per custom run, for its first unfinished job; only where the run directory is known.
    const QString runDirectory = job.metricsPath.section(u'/', 0, -2);
    if (!m_logPatterns.contains(job.runId) || m_loggerFilesRead.contains(job.runId) || !m_connection ||
        !runDirectory.endsWith(QStringLiteral("/runs/") + job.runId))
        return done();
    m_loggerFilesRead.insert(job.runId);
    // Written by the run's jobs: newer than its first script, and no hard link of a code snapshot's files
    // (a local run's outputs uploaded with --code are no data of this one).
    const QString first = shellQuote(runDirectory + QStringLiteral("/job-0.sh"));
    const QString command =
        QStringLiteral("if test -f %1; then find %2 -maxdepth %3 -type f -links 1 -newer %1 \\( -name metrics.csv "
                       "-o -name 'events.out.tfevents.*' \\) -printf '%s %p\\0'; fi")
            .arg(first, shellQuote(runDirectory))
            .arg(findDepth);
    RemoteCommand *run = m_connection->run(command);
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
        QList<std::pair<LoggerFileRecord, LoggerFileRecord>> changed; // as stored, as found
        for (LoggerFileRecord found : foundFiles(result.out)) {
            LoggerFileRecord before{found.path, job.attempt, 0, 0};
            for (const LoggerFileRecord &known : stored.value) {
                if (known.path == found.path)
                    before = known;
            }
            found.attempt = before.attempt;
            if (found.size != before.size)
                changed.append({before, found});
        }
        readLoggerFile(job.runId, changed, done);
    });
}

void RunTracker::readLoggerFile(const QString &runId, QList<std::pair<LoggerFileRecord, LoggerFileRecord>> files,
                                const std::function<void()> &done)
{
    if (files.isEmpty() || !m_connection)
        return done();
    const auto [before, found] = files.takeFirst();
    const auto next = [this, runId, files, done] { readLoggerFile(runId, files, done); };
    // Lightning rewrites its CSV whole when a column appears: read whole, counted in rows. Event files grow.
    readTail(found.path, isCsv(found.path) ? 0 : before.offset, next,
             [this, runId, before, found](const QByteArray &bytes) { loggerFileRead(runId, before, found, bytes); });
}

void RunTracker::loggerFileRead(const QString &runId, const LoggerFileRecord &before, LoggerFileRecord after,
                                const QByteArray &bytes)
{
    QList<MetricEvent> events;
    if (isCsv(after.path)) {
        LightningCsvReader reader;
        events = reader.read(bytes, before.offset);
        after.offset = std::max<qint64>(reader.rows(), before.offset);
        after.size = bytes.size();
        if (reader.malformed() > 0)
            note(tr("%1: %2 cell(s) that are no numbers skipped").arg(after.path).arg(reader.malformed()));
    } else {
        TfEventReader reader(before.offset);
        const bool lightning = after.path.contains(QStringLiteral("/lightning_logs/"));
        events = tensorBoardEvents(reader.feed(bytes), lightning ? 0 : 1);
        after.offset = reader.offset();
        after.size = before.offset + bytes.size();
        const QString file = after.path.section(u'/', -1);
        if (!reader.problem().isEmpty())
            noteOnRun(runId, tr("%1: %2").arg(file, reader.problem()));
        else if (reader.corrupt() + reader.malformed() > 0)
            noteOnRun(runId,
                      tr("%1: %2 damaged record(s) skipped").arg(file).arg(reader.corrupt() + reader.malformed()));
    }
    if (after.offset == before.offset && after.size == before.size)
        return;
    stampReadTime(&events);
    storeEvents(runId, after.attempt, events,
                [&] { return m_store->appendLoggerFileMetrics(runId, before, after, events); });
}

} // namespace torchdeck::remote
