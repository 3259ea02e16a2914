#include "core/scheduler/schedulertext.h"

#include "core/coretr.h"

#include <QRegularExpression>

namespace torchdeck::schedulertext {

QList<Line> nonBlankLines(const QByteArray &output)
{
    QList<Line> lines;
    const QString text = QString::fromUtf8(output);
    int number = 0;
    for (QStringView line : QStringView(text).split(u'\n')) {
        ++number;
        if (line.endsWith(u'\r'))
            line.chop(1);
        if (!line.trimmed().isEmpty())
            lines.append({number, line.toString()});
    }
    return lines;
}

QDateTime slurmTime(QStringView text)
{
    const QString trimmed = text.trimmed().toString();
    if (trimmed.isEmpty() || !trimmed.at(0).isDigit())
        return {};
    return QDateTime::fromString(trimmed, Qt::ISODate);
}

QDateTime pbsTime(QStringView text)
{
    // ctime pads a one-digit day with a space; QDateTime wants single spaces.
    const QString simple = text.toString().simplified();
    const QStringList parts = simple.split(u' ');
    if (parts.size() != 5)
        return {};
    static const QStringList months = {QStringLiteral("Jan"), QStringLiteral("Feb"), QStringLiteral("Mar"),
                                       QStringLiteral("Apr"), QStringLiteral("May"), QStringLiteral("Jun"),
                                       QStringLiteral("Jul"), QStringLiteral("Aug"), QStringLiteral("Sep"),
                                       QStringLiteral("Oct"), QStringLiteral("Nov"), QStringLiteral("Dec")};
    const int month = int(months.indexOf(parts.at(1))) + 1; // English names whatever the locale
    bool dayOk = false;
    bool yearOk = false;
    const int day = parts.at(2).toInt(&dayOk);
    const int year = parts.at(4).toInt(&yearOk);
    const QTime time = QTime::fromString(parts.at(3), QStringLiteral("HH:mm:ss"));
    const QDate date(year, month, day);
    if (month == 0 || !dayOk || !yearOk || !time.isValid() || !date.isValid())
        return {};
    return QDateTime(date, time);
}

namespace {

// Non-negative integer or -1.
qint64 number(QStringView text)
{
    if (text.isEmpty())
        return -1;
    for (QChar c : text) {
        if (!c.isDigit())
            return -1;
    }
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    return ok ? value : -1;
}

} // namespace

qint64 slurmDuration(QStringView text)
{
    text = text.trimmed();
    if (text == u"UNLIMITED" || text == u"INFINITE")
        return 0;
    qint64 days = 0;
    QStringView clock = text;
    const qsizetype dash = text.indexOf(u'-');
    if (dash >= 0) {
        days = number(text.left(dash));
        clock = text.mid(dash + 1);
        if (days < 0)
            return -1;
    }
    const QList<QStringView> parts = clock.split(u':');
    if (parts.size() > 3)
        return -1;
    qint64 values[3] = {0, 0, 0};
    for (int i = 0; i < parts.size(); ++i) {
        values[i] = number(parts.at(i));
        if (values[i] < 0)
            return -1;
    }
    // After "days-" the clock starts with hours; alone, one or two fields are minutes[:seconds].
    if (dash < 0 && parts.size() == 1)
        return values[0] * 60;
    if (dash < 0 && parts.size() == 2)
        return values[0] * 60 + values[1];
    return days * 86400 + values[0] * 3600 + values[1] * 60 + values[2];
}

qint64 pbsDuration(QStringView text)
{
    text = text.trimmed();
    const QList<QStringView> parts = text.split(u':');
    if (parts.size() == 1)
        return number(text);
    if (parts.size() != 3)
        return -1;
    const qint64 hours = number(parts.at(0));
    const qint64 minutes = number(parts.at(1));
    const qint64 seconds = number(parts.at(2));
    if (hours < 0 || minutes < 0 || seconds < 0)
        return -1;
    return hours * 3600 + minutes * 60 + seconds;
}

ExitStatus slurmExitCode(QStringView text)
{
    const QList<QStringView> parts = text.trimmed().split(u':');
    if (parts.size() != 2)
        return {};
    const qint64 code = number(parts.at(0));
    const qint64 signal = number(parts.at(1));
    if (code < 0 || code > 255 || signal < 0 || signal > 127)
        return {};
    return {int(code), int(signal)};
}

ExitStatus waitStatus(int status)
{
    if (status < 0)
        return {};
    if ((status & 0x7f) != 0) // WIFSIGNALED
        return {0, status & 0x7f};
    return {(status >> 8) & 0xff, 0};
}

bool isSlurmJobId(QStringView text)
{
    static const QRegularExpression pattern(QStringLiteral(R"(\A\d+(_(\d+|\[[0-9,%:-]+\]))?(\+\d+)?\z)"));
    return pattern.match(text).hasMatch();
}

QStringList slurmArrayTaskIds(const QString &id, int most)
{
    static const QRegularExpression range(QStringLiteral(R"(\A(\d+)_\[([0-9,:-]+)(%\d+)?\]\z)"));
    const QRegularExpressionMatch match = range.match(id);
    if (!match.hasMatch())
        return {id};
    QStringList ids;
    for (const QString &part : match.captured(2).split(u',', Qt::SkipEmptyParts)) {
        const QString span = part.section(u':', 0, 0); // a step ("1-9:2") is not followed: each listed is
        bool firstOk = false;
        bool lastOk = false;
        const qint64 first = span.section(u'-', 0, 0).toLongLong(&firstOk);
        const qint64 last = span.contains(u'-') ? span.section(u'-', 1, 1).toLongLong(&lastOk) : first;
        if (!firstOk || (span.contains(u'-') && !lastOk))
            continue;
        for (qint64 task = first; task <= last && ids.size() < most; ++task)
            ids.append(match.captured(1) + u'_' + QString::number(task));
    }
    return ids.isEmpty() ? QStringList{id} : ids;
}

bool isPbsJobId(QStringView text)
{
    static const QRegularExpression pattern(QStringLiteral(R"(\A\d+(\[\d*\])?(\.[A-Za-z0-9_.-]+)?\z)"));
    return pattern.match(text).hasMatch();
}

std::optional<QStringList> slurmFields(const Line &line, int count, QStringList *errors)
{
    QStringList fields = line.text.split(u'|');
    if (fields.size() >= count)
        return fields;
    errors->append(core::Tr::tr("line %1: expected %2 fields separated by '|', got %3")
                       .arg(line.number)
                       .arg(count)
                       .arg(fields.size()));
    return std::nullopt;
}

QString notASlurmJobId(const Line &line, QStringView id)
{
    return core::Tr::tr("line %1: '%2' is not a Slurm job id").arg(line.number).arg(id.left(40));
}

JobInfo slurmJob(const QStringList &fields, const SlurmColumns &columns)
{
    JobInfo job;
    job.id = fields.at(columns.id);
    job.rawState = fields.at(columns.state);
    job.state = slurmJobState(job.rawState);
    job.reason = slurmText(fields.at(columns.reason));
    job.nodes = slurmText(fields.at(columns.nodes));
    job.queue = fields.at(columns.partition);
    job.submitted = slurmTime(fields.at(columns.submit));
    job.started = slurmTime(fields.at(columns.start));
    job.ended = slurmTime(fields.at(columns.end));
    job.timeLimitSeconds = slurmDuration(fields.at(columns.timeLimit));
    job.elapsedSeconds = slurmDuration(fields.at(columns.elapsed));
    return job;
}

QString slurmText(QStringView text)
{
    text = text.trimmed();
    if (text == u"(null)" || text == u"None" || text == u"N/A")
        return {};
    return text.toString();
}

void settleJob(JobInfo &job)
{
    if (job.state == JobState::Pending && job.restarts > 0)
        job.state = JobState::Requeued;
    if (!isFinal(job.state) && job.state != JobState::Completing) {
        job.exitCode = -1;
        job.signal = 0;
        job.ended = {};
    }
    if (job.state == JobState::Pending || job.state == JobState::Requeued) {
        if (!job.expectedStart.isValid())
            job.expectedStart = job.started; // Slurm prints the expected start as StartTime
        job.started = {};
    } else {
        job.expectedStart = {};
    }
}

} // namespace torchdeck::schedulertext
