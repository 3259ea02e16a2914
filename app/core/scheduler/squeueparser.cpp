#include "core/scheduler/squeueparser.h"

#include "core/coretr.h"
#include "core/scheduler/schedulertext.h"

namespace torchdeck {

using namespace schedulertext;

namespace {

enum Field {
    Id,
    State,
    Reason,
    Restarts,
    Exit,
    TimeLimit,
    TimeUsed,
    Nodes,
    Partition,
    Submit,
    Start,
    End,
    Name,
    FieldCount
};

constexpr const char16_t *fieldNames[FieldCount] = {
    u"JobID",    u"State",     u"Reason",     u"RestartCnt", u"exit_code", u"TimeLimit", u"TimeUsed",
    u"NodeList", u"Partition", u"SubmitTime", u"StartTime",  u"EndTime",   u"Name"};

} // namespace

QString squeueFormat()
{
    QStringList fields;
    for (int i = 0; i < FieldCount; ++i)
        fields.append(QString::fromUtf16(fieldNames[i]) + (i + 1 < FieldCount ? u":0|" : u":0"));
    return fields.join(u',');
}

JobListResult parseSqueue(const QByteArray &output)
{
    JobListResult result;
    for (const Line &line : nonBlankLines(output)) {
        if (line.text.startsWith(QStringLiteral("JOBID|")))
            continue; // a header, if --noheader was lost on the way
        // The name is last: split off the first fields and keep the rest whole.
        QStringList fields = line.text.split(u'|');
        if (fields.size() < FieldCount) {
            result.errors.append(core::Tr::tr("line %1: expected %2 fields separated by '|', got %3")
                                     .arg(line.number)
                                     .arg(FieldCount)
                                     .arg(fields.size()));
            continue;
        }
        const QString name = fields.mid(Name).join(u'|');
        fields = fields.mid(0, Name);
        if (!isSlurmJobId(fields.at(Id))) {
            result.errors.append(
                core::Tr::tr("line %1: '%2' is not a Slurm job id").arg(line.number).arg(fields.at(Id).left(40)));
            continue;
        }
        bool restartsOk = false;
        bool statusOk = false;
        const int restarts = fields.at(Restarts).toInt(&restartsOk);
        const int status = fields.at(Exit).toInt(&statusOk);
        if (!restartsOk || !statusOk) {
            result.errors.append(core::Tr::tr("line %1: restart count '%2' or exit status '%3' is not a number")
                                     .arg(line.number)
                                     .arg(fields.at(Restarts), fields.at(Exit)));
            continue;
        }
        JobInfo job;
        job.id = fields.at(Id);
        job.rawState = fields.at(State);
        job.state = slurmJobState(job.rawState);
        job.reason = slurmText(fields.at(Reason));
        job.restarts = restarts;
        const schedulertext::ExitStatus exit = waitStatus(status);
        job.exitCode = exit.code;
        job.signal = exit.signal;
        job.timeLimitSeconds = slurmDuration(fields.at(TimeLimit));
        job.elapsedSeconds = slurmDuration(fields.at(TimeUsed));
        job.nodes = slurmText(fields.at(Nodes));
        job.queue = fields.at(Partition);
        job.submitted = slurmTime(fields.at(Submit));
        job.started = slurmTime(fields.at(Start));
        job.ended = slurmTime(fields.at(End));
        job.name = name;
        settleJob(job);
        result.jobs.append(job);
    }
    return result;
}

} // namespace torchdeck
