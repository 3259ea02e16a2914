#include "core/scheduler/qstattableparser.h"

#include "core/coretr.h"
#include "core/scheduler/schedulertext.h"

namespace torchdeck {

using namespace schedulertext;

namespace {

enum Column { Id, Name, User, TimeUse, State, Queue, ColumnCount };

bool isRule(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (!trimmed.startsWith(u'-'))
        return false;
    for (QChar c : trimmed) {
        if (c != u'-' && c != u' ')
            return false;
    }
    return true;
}

} // namespace

JobListResult parseQstatTable(const QByteArray &output)
{
    JobListResult result;
    const QList<Line> lines = nonBlankLines(output);
    QList<schedulertext::Column> columns;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const Line &line = lines.at(i);
        if (isRule(line.text)) {
            columns = columnsFromRule(line.text);
            if (columns.size() < ColumnCount)
                result.errors.append(core::Tr::tr("line %1: %2 columns, expected %3")
                                         .arg(line.number)
                                         .arg(columns.size())
                                         .arg(int(ColumnCount)));
            continue;
        }
        if (i + 1 < lines.size() && isRule(lines.at(i + 1).text))
            continue; // the header of the next table
        if (columns.size() < ColumnCount) {
            result.errors.append(core::Tr::tr("line %1: a row without a table header above it").arg(line.number));
            continue;
        }
        const QString id = columnText(line.text, columns, Id);
        if (!isPbsJobId(id)) {
            result.errors.append(
                core::Tr::tr("line %1: '%2' is not a whole PBS job id").arg(line.number).arg(id.left(40)));
            continue;
        }
        JobInfo job;
        job.id = id;
        job.name = columnText(line.text, columns, Name);
        job.rawState = columnText(line.text, columns, State);
        job.state = pbsJobState(job.rawState);
        job.queue = columnText(line.text, columns, Queue);
        if (job.rawState.isEmpty() || job.state == JobState::Unknown) {
            result.errors.append(
                core::Tr::tr("line %1: '%2' is not a PBS job state").arg(line.number).arg(job.rawState));
            continue;
        }
        settleJob(job);
        result.jobs.append(job);
    }
    return result;
}

} // namespace torchdeck
