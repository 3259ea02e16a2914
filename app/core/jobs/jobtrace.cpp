#include "core/jobs/jobtrace.h"

#include "core/shellquote.h"

#include <QList>

namespace torchdeck {

namespace {
bool plausibleJobId(QStringView id)
{
    // Slurm "123", "123_4"; PBS "123.server", "123[4].server"; a local run's pid.
    if (id.isEmpty() || id.size() > 256)
        return false;
    for (const QChar c : id) {
        if (!c.isLetterOrNumber() && !QStringView(u"._-[]@").contains(c))
            return false;
    }
    return true;
}
} // namespace

JobTrace parseJobTrace(const QByteArray &text)
{
    JobTrace trace;
    for (const QByteArray &raw : text.split('\n')) {
        const QList<QByteArray> words = raw.simplified().split(' ');
        const QString id = words.size() >= 2 ? QString::fromUtf8(words.at(1)) : QString();
        if (!plausibleJobId(id))
            continue;
        if (words.size() == 2 && words.at(0) == "start") {
            trace = {id, false, -1};
        } else if (words.size() == 3 && words.at(0) == "end" && id == trace.jobId) {
            bool ok = false;
            const int code = words.at(2).toInt(&ok);
            if (ok && code >= 0 && code <= 255) {
                trace.ended = true;
                trace.exitCode = code;
            }
        }
    }
    return trace;
}

QStringList jobTraceLines(const QString &path, SchedulerKind scheduler)
{
    if (path.isEmpty())
        return {};
    QStringList lines{QStringLiteral("# This job's own record, its start and its end (docs/agent.md): a job the "
                                     "scheduler forgot is still found."),
                      QStringLiteral("td_trace=") + shellQuote(path)};
    if (scheduler == SchedulerKind::Slurm)
        lines << QStringLiteral("td_trace_id=$SLURM_JOB_ID")
              << QStringLiteral("if [ -n \"${SLURM_ARRAY_JOB_ID:-}\" ]; then "
                                "td_trace_id=${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}; fi");
    else
        lines << QStringLiteral("td_trace_id=$td_job_id");
    lines << QStringLiteral("printf 'start %s\\n' \"$td_trace_id\" >>\"$td_trace\" || true")
          << QStringLiteral("trap 'printf \"end %s %s\\n\" \"$td_trace_id\" \"$?\" >>\"$td_trace\" || true' EXIT");
    return lines;
}

} // namespace torchdeck
