#include "term/render/plainupdate.h"

#include "term/render/numberformat.h"
#include "term/render/textwidth.h"

namespace torchdeck::term {

namespace {

const WatchRunRow *findRun(const QList<WatchRunRow> &runs, const QString &id)
{
    for (const WatchRunRow &r : runs) {
        if (r.id == id)
            return &r;
    }
    return nullptr;
}

bool changed(const WatchRunRow &before, const WatchRunRow &now)
{
    return before.state != now.state || before.epochsDone != now.epochsDone || before.epochsTotal != now.epochsTotal ||
           before.jobIds != now.jobIds || before.why != now.why;
}

} // namespace

QString plainRunLine(const WatchRunRow &run)
{
    QString line = u"run " + terminalSafe(run.id) + u' ' + terminalSafe(run.state);
    line += u" epoch " + QString::number(run.epochsDone) + u'/' +
            (run.epochsTotal >= 0 ? QString::number(run.epochsTotal) : QStringLiteral("?"));
    if (MetricEvent::has(run.lastLoss))
        line += u" loss " + formatCompact(run.lastLoss);
    if (MetricEvent::has(run.etaSeconds))
        line += u" eta " + formatDuration(run.etaSeconds);
    if (!run.jobIds.isEmpty())
        line += u" job " + terminalSafe(run.jobIds.last());
    if (!run.why.isEmpty())
        line += u" (" + terminalSafe(run.why) + u')';
    return line;
}

QStringList renderPlainUpdate(const WatchSnapshot &previous, const WatchSnapshot &current)
{
    QStringList lines;
    for (const WatchRunRow &run : current.runs) {
        const WatchRunRow *before = findRun(previous.runs, run.id);
        if (!before || changed(*before, run))
            lines.append(plainRunLine(run));
    }
    if (!current.message.isEmpty() && current.message != previous.message)
        lines.append(
            QString((current.messageIsError ? QStringLiteral("error: ") : QString()) + terminalSafe(current.message)));
    return lines;
}

} // namespace torchdeck::term
