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
    static constexpr SlurmColumns columns{Id, State, Reason, Nodes, Partition, Submit, Start, End, TimeLimit, Elapsed};
    JobListResult result;
    for (const Line &line : nonBlankLines(output)) {
        const std::optional<QStringList> split = slurmFields(line, FieldCount, &result.errors);
        if (!split)
            continue;
        const QStringList &fields = *split;
        if (isStep(fields.at(Id)))
            continue;
        if (!isSlurmJobId(fields.at(Id))) {
            result.errors.append(notASlurmJobId(line, fields.at(Id)));
            continue;
        }
        JobInfo job = slurmJob(fields, columns);
        const schedulertext::ExitStatus exit = slurmExitCode(fields.at(Exit));
        job.exitCode = exit.code;
        job.signal = exit.signal;
        job.name = fields.mid(Name).join(u'|');
        settleJob(job);
        for (const QString &id : slurmArrayTaskIds(job.id)) {
            job.id = id;
            addOrReplace(result, job);
        }
    }
    return result;
}

} // namespace torchdeck
