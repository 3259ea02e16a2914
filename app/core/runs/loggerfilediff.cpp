#include "core/runs/loggerfilediff.h"

#include "core/coretr.h"
#include "core/metrics/lightningcsv.h"
#include "core/metrics/scalarmapping.h"
#include "core/metrics/tfeventreader.h"
#include "core/shellquote.h"

#include <optional>

namespace torchdeck {

namespace {
constexpr int findDepth = 6; // <run>/code/lightning_logs/version_0/metrics.csv, <run>/runs/<date>/events...
} // namespace

QString loggerFilesFindCommand(const QStringList &runDirectories)
{
    // One find for every run of a pass: a process per run cost the login node more than all the walks.
    QStringList quoted;
    for (const QString &directory : runDirectories)
        quoted.append(shellQuote(directory));
    return QStringLiteral("find %1 -maxdepth %2 -type f \\( -name job-0.sh -o -links 1 \\( -name metrics.csv "
                          "-o -name 'events.out.tfevents.*' \\) \\) -printf '%T@ %s %p\\0'")
        .arg(quoted.join(u' '))
        .arg(findDepth);
}

namespace {
struct FoundFile {
    qint64 seconds = 0;
    qint64 nanoseconds = 0;
    LoggerFileRecord record;
    bool operator>(const FoundFile &other) const
    {
        return seconds != other.seconds ? seconds > other.seconds : nanoseconds > other.nanoseconds;
    }
};

// "<seconds>.<fraction> <size> <path>"; nullopt for anything else.
std::optional<FoundFile> foundFile(const QByteArray &entry)
{
    const QList<QByteArray> fields = entry.split(' ');
    if (fields.size() < 3)
        return std::nullopt;
    const QList<QByteArray> time = fields.at(0).split('.');
    bool ok = false;
    FoundFile file;
    file.seconds = time.at(0).toLongLong(&ok);
    if (!ok || time.size() > 2)
        return std::nullopt;
    if (time.size() == 2) {
        file.nanoseconds = time.at(1).leftJustified(9, '0', true).toLongLong(&ok);
        if (!ok)
            return std::nullopt;
    }
    file.record.size = fields.at(1).toLongLong(&ok);
    const qsizetype pathAt = fields.at(0).size() + fields.at(1).size() + 2;
    if (!ok || file.record.size < 0 || pathAt >= entry.size())
        return std::nullopt;
    file.record.path = QString::fromUtf8(entry.mid(pathAt));
    return file;
}
} // namespace

QHash<QString, QList<LoggerFileRecord>> parseFoundLoggerFiles(const QByteArray &findOutput,
                                                              const QStringList &runDirectories)
{
    QList<FoundFile> files;
    QHash<QString, FoundFile> firstScripts;
    for (const QByteArray &entry : findOutput.split('\0')) {
        const std::optional<FoundFile> file = foundFile(entry);
        if (!file)
            continue;
        const QString &path = file->record.path;
        if (path.endsWith(QStringLiteral("/job-0.sh")))
            firstScripts.insert(path.chopped(int(qstrlen("/job-0.sh"))), *file);
        else
            files.append(*file);
    }
    QHash<QString, QList<LoggerFileRecord>> found;
    for (const QString &directory : runDirectories) {
        QList<LoggerFileRecord> &under = found[directory];
        const auto first = firstScripts.constFind(directory);
        if (first == firstScripts.cend())
            continue; // no job of the run started: nothing there is its own
        for (const FoundFile &file : std::as_const(files)) {
            if (file.record.path.startsWith(directory + u'/') && file > *first)
                under.append(file.record);
        }
    }
    return found;
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
