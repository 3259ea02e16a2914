#include "core/runs/loggerfilediff.h"

#include "core/coretr.h"
#include "core/metrics/lightningcsv.h"
#include "core/metrics/scalarmapping.h"
#include "core/metrics/tfeventreader.h"
#include "core/shellquote.h"

namespace torchdeck {

namespace {
constexpr int findDepth = 6; // <run>/code/lightning_logs/version_0/metrics.csv, <run>/runs/<date>/events...
} // namespace

QString loggerFilesFindCommand(const QString &runDirectory)
{
    const QString first = shellQuote(runDirectory + QStringLiteral("/job-0.sh"));
    return QStringLiteral("if test -f %1; then find %2 -maxdepth %3 -type f -links 1 -newer %1 \\( -name metrics.csv "
                          "-o -name 'events.out.tfevents.*' \\) -printf '%s %p\\0'; fi")
        .arg(first, shellQuote(runDirectory))
        .arg(findDepth);
}

QList<LoggerFileRecord> parseFoundLoggerFiles(const QByteArray &findOutput)
{
    QList<LoggerFileRecord> files;
    for (const QByteArray &entry : findOutput.split('\0')) {
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

QList<LoggerFileChange> changedLoggerFiles(const QList<LoggerFileRecord> &found, const QList<LoggerFileRecord> &stored,
                                           int attempt)
{
    QList<LoggerFileChange> changed;
    for (LoggerFileRecord file : found) {
        LoggerFileRecord before{file.path, attempt, 0, 0};
        for (const LoggerFileRecord &known : stored) {
            if (known.path == file.path)
                before = known;
        }
        file.attempt = before.attempt;
        if (file.size != before.size)
            changed.append({before, file});
    }
    return changed;
}

bool isLightningCsv(const QString &path)
{
    return path.endsWith(QStringLiteral("/metrics.csv"));
}

qint64 loggerFileReadOffset(const LoggerFileChange &change)
{
    return isLightningCsv(change.found.path) ? 0 : change.before.offset;
}

LoggerFileRead readLoggerFileBytes(const LoggerFileChange &change, const QByteArray &bytes, double now)
{
    const LoggerFileRecord &before = change.before;
    LoggerFileRead read;
    LoggerFileRecord &after = read.after;
    after = change.found;
    if (isLightningCsv(after.path)) {
        LightningCsvReader reader;
        read.events = reader.read(bytes, before.offset);
        after.offset = std::max<qint64>(reader.rows(), before.offset);
        after.size = bytes.size();
        if (reader.malformed() > 0)
            read.skipped =
                core::Tr::tr("%1: %2 cell(s) that are no numbers skipped").arg(after.path).arg(reader.malformed());
    } else {
        TfEventReader reader(before.offset);
        const bool lightning = after.path.contains(QStringLiteral("/lightning_logs/"));
        read.events = tensorBoardEvents(reader.feed(bytes), lightning ? 0 : 1);
        after.offset = reader.offset();
        after.size = before.offset + bytes.size();
        const QString file = after.path.section(u'/', -1);
        const qint64 damaged = reader.corrupt() + reader.malformed();
        if (!reader.problem().isEmpty())
            read.runMessage = core::Tr::tr("%1: %2").arg(file, reader.problem());
        else if (damaged > 0)
            read.runMessage = core::Tr::tr("%1: %2 damaged record(s) skipped").arg(file).arg(damaged);
    }
    read.changed = after.offset != before.offset || after.size != before.size;
    for (MetricEvent &event : read.events) {
        event.source = MetricSource::LoggerFiles;
        if (!MetricEvent::has(event.time))
            event.time = now;
    }
    return read;
}

} // namespace torchdeck
