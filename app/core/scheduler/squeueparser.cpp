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
    ArrayJob,
    ArrayTask,
    Name,
    FieldCount
};

constexpr const char16_t *fieldNames[FieldCount] = {
    u"JobID",     u"State",      u"Reason",    u"RestartCnt", u"exit_code",  u"TimeLimit",   u"TimeUsed", u"NodeList",
    u"Partition", u"SubmitTime", u"StartTime", u"EndTime",    u"ArrayJobID", u"ArrayTaskID", u"Name"};

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
    static constexpr SlurmColumns columns{Id, State, Reason, Nodes, Partition, Submit, Start, End, TimeLimit, TimeUsed};
    JobListResult result;
    for (const Line &line : nonBlankLines(output)) {
        if (line.text.startsWith(QStringLiteral("JOBID|")))
            continue; // a header, if --noheader was lost on the way
        // The name is last: split off the first fields and keep the rest whole.
        const std::optional<QStringList> split = slurmFields(line, FieldCount, &result.errors);
        if (!split)
            continue;
        const QString name = split->mid(Name).join(u'|');
        const QStringList fields = split->mid(0, Name);
        if (!isSlurmJobId(fields.at(Id))) {
            result.errors.append(notASlurmJobId(line, fields.at(Id)));
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
        JobInfo job = slurmJob(fields, columns);
        // An array's task goes by "<array>_<task>" (JobID is each task's own number): as sbatch's reply and
        // the runs name it.
        bool task = false;
        static_cast<void>(fields.at(ArrayTask).toInt(&task));
        if (task && isSlurmJobId(fields.at(ArrayJob)))
            job.id = fields.at(ArrayJob) + u'_' + fields.at(ArrayTask);
        job.restarts = restarts;
        const schedulertext::ExitStatus exit = waitStatus(status);
        job.exitCode = exit.code;
        job.signal = exit.signal;
        job.name = name;
        settleJob(job);
        result.jobs.append(job);
    }
    return result;
}

} // namespace torchdeck
