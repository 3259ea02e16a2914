#include "core/scheduler/sacctparser.h"

#include "core/coretr.h"
#include "core/scheduler/schedulertext.h"

#include <QRegularExpression>

namespace torchdeck {

using namespace schedulertext;

namespace {

enum Field { Id, State, Exit, Reason, Nodes, Partition, Submit, Start, End, TimeLimit, Elapsed, Name, FieldCount };

constexpr const char16_t *fieldNames[FieldCount] = {u"JobID",    u"State",     u"ExitCode", u"Reason",
                                                    u"NodeList", u"Partition", u"Submit",   u"Start",
                                                    u"End",      u"Timelimit", u"Elapsed",  u"JobName"};

bool isStep(const QString &id)
{
    static const QRegularExpression step(QStringLiteral(R"(^\S+\.(\d+|batch|extern|interactive)$)"));
    return step.match(id).hasMatch();
}

// A later record of the same job replaces the earlier one, in place.
void addOrReplace(JobListResult &result, const JobInfo &job)
{
    for (JobInfo &existing : result.jobs) {
        if (existing.id == job.id) {
            existing = job;
            return;
        }
    }
    result.jobs.append(job);
}

} // namespace

QString sacctFormat()
{
    QStringList fields;
    for (const char16_t *name : fieldNames)
        fields.append(QString::fromUtf16(name));
    return fields.join(u',');
}

JobListResult parseSacct(const QByteArray &output)
{
    JobListResult result;
    for (const Line &line : nonBlankLines(output)) {
        QStringList fields = line.text.split(u'|');
        if (fields.size() < FieldCount) {
            result.errors.append(core::Tr::tr("line %1: expected %2 fields separated by '|', got %3")
                                     .arg(line.number)
                                     .arg(FieldCount)
                                     .arg(fields.size()));
            continue;
        }
        if (isStep(fields.at(Id)))
            continue;
        if (!isSlurmJobId(fields.at(Id))) {
            result.errors.append(
                core::Tr::tr("line %1: '%2' is not a Slurm job id").arg(line.number).arg(fields.at(Id).left(40)));
            continue;
        }
        JobInfo job;
        job.id = fields.at(Id);
        job.rawState = fields.at(State);
        job.state = slurmJobState(job.rawState);
        const schedulertext::ExitStatus exit = slurmExitCode(fields.at(Exit));
        job.exitCode = exit.code;
        job.signal = exit.signal;
        job.reason = slurmText(fields.at(Reason));
        job.nodes = slurmText(fields.at(Nodes));
        job.queue = fields.at(Partition);
        job.submitted = slurmTime(fields.at(Submit));
        job.started = slurmTime(fields.at(Start));
        job.ended = slurmTime(fields.at(End));
        job.timeLimitSeconds = slurmDuration(fields.at(TimeLimit));
        job.elapsedSeconds = slurmDuration(fields.at(Elapsed));
        job.name = fields.mid(Name).join(u'|');
        settleJob(job);
        addOrReplace(result, job);
    }
    return result;
}

JobListResult parseSacctTable(const QByteArray &output)
{
    JobListResult result;
    const QList<Line> lines = nonBlankLines(output);
    qsizetype ruleIndex = -1;
    for (qsizetype i = 1; i < lines.size() && ruleIndex < 0; ++i) {
        if (lines.at(i).text.trimmed().startsWith(u'-'))
            ruleIndex = i;
    }
    if (lines.isEmpty())
        return result;
    if (ruleIndex < 0) {
        result.errors.append(core::Tr::tr("line %1: no header and '---' rule line").arg(lines.first().number));
        return result;
    }
    const QList<Column> columns = columnsFromRule(lines.at(ruleIndex).text);
    QHash<QString, int> byName;
    for (int i = 0; i < columns.size(); ++i)
        byName.insert(columnText(lines.at(ruleIndex - 1).text, columns, i), i);
    if (!byName.contains(QStringLiteral("JobID")) || !byName.contains(QStringLiteral("State"))) {
        result.errors.append(
            core::Tr::tr("line %1: the header has no JobID or State column").arg(lines.at(ruleIndex - 1).number));
        return result;
    }
    const auto column = [&](const QString &text, const char16_t *name) {
        const int index = byName.value(QString::fromUtf16(name), -1);
        return columnText(text, columns, index);
    };
    for (qsizetype i = ruleIndex + 1; i < lines.size(); ++i) {
        const Line &line = lines.at(i);
        const QString id = column(line.text, u"JobID");
        if (isStep(id))
            continue;
        if (!isSlurmJobId(id)) {
            result.errors.append(core::Tr::tr("line %1: '%2' is not a Slurm job id").arg(line.number).arg(id.left(40)));
            continue;
        }
        JobInfo job;
        job.id = id;
        job.rawState = column(line.text, u"State");
        job.state = slurmJobState(job.rawState);
        job.name = column(line.text, u"JobName");
        job.queue = column(line.text, u"Partition");
        job.nodes = slurmText(column(line.text, u"NodeList"));
        job.ended = slurmTime(column(line.text, u"End"));
        settleJob(job);
        addOrReplace(result, job);
    }
    return result;
}

} // namespace torchdeck
