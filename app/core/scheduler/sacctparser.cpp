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

} // namespace torchdeck
