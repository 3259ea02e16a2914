#include "term/runtable.h"

#include "core/runs/jobscheduling.h"
#include "core/runs/restartdecision.h"
#include "term/render/numberformat.h"
#include "term/termcontext.h"
#include "term/termtr.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>

namespace torchdeck::term {

namespace {
QString padded(const QString &text, qsizetype width)
{
    return text.size() >= width ? text : text + QString(width - text.size(), u' ');
}

QJsonValue number(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}
} // namespace

QString formatEpochs(qint64 done, qint64 total)
{
    return QStringLiteral("%1/%2").arg(done).arg(total >= 0 ? QString::number(total) : QStringLiteral("?"));
}

QString formatLoss(double loss)
{
    if (!std::isfinite(loss))
        return QStringLiteral("-");
    return QString::number(loss, 'g', 4);
}

QString formatRunTable(const QList<RunRecord> &runs, const QHash<QString, QString> &why)
{
    QStringList headers{Tr::tr("RUN"),   Tr::tr("NAME"), Tr::tr("CLUSTER"), Tr::tr("STATE"),
                        Tr::tr("EPOCH"), Tr::tr("LOSS"), Tr::tr("ETA"),     Tr::tr("CREATED")};
    const bool anyWhy = std::any_of(why.cbegin(), why.cend(), [](const QString &text) { return !text.isEmpty(); });
    if (anyWhy)
        headers.append(Tr::tr("WHY"));
    QList<QStringList> rows;
    rows.reserve(runs.size());
    for (const RunRecord &run : runs) {
        rows.append({shortRunId(run.id), run.name, run.cluster, run.state,
                     formatEpochs(run.epochsDone, run.epochsTotal), formatLoss(run.lastLoss),
                     formatDuration(run.etaSeconds),
                     run.created.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"))});
        if (anyWhy)
            rows.last().append(why.value(run.id));
    }
    return formatColumns(headers, rows);
}

QString formatColumns(const QStringList &headers, const QList<QStringList> &rows)
{
    QList<qsizetype> widths;
    for (const QString &header : headers)
        widths.append(header.size());
    for (const QStringList &row : rows) {
        for (qsizetype c = 0; c < row.size() && c < widths.size(); ++c)
            widths[c] = std::max(widths[c], row.at(c).size());
    }
    QString text;
    const auto line = [&](const QStringList &cells) {
        for (qsizetype c = 0; c < cells.size(); ++c)
            text += c + 1 < cells.size() ? padded(cells.at(c), widths[c] + 2) : cells.at(c);
        text += u'\n';
    };
    line(headers);
    for (const QStringList &row : rows)
        line(row);
    return text;
}

QString clusterOfJob(const RunRecord &run, const JobRecord &job)
{
    return job.cluster.isEmpty() ? run.cluster : job.cluster;
}

bool spansClusters(const RunRecord &run, const QList<JobRecord> &jobs)
{
    return std::any_of(jobs.cbegin(), jobs.cend(),
                       [&run](const JobRecord &job) { return clusterOfJob(run, job) != run.cluster; });
}

QString formatRunStatus(const RunRecord &run, const QList<JobRecord> &jobs)
{
    const bool labelled = spansClusters(run, jobs);
    const int requeueExitCode = requeueExitCodeOf(run);
    QString text;
    text += Tr::tr("run      %1 (%2)\n").arg(shortRunId(run.id), run.id);
    text += Tr::tr("name     %1 on %2\n").arg(run.name, run.cluster);
    text += Tr::tr("state    %1\n").arg(run.state);
    text += Tr::tr("epochs   %1   loss %2   eta %3\n")
                .arg(formatEpochs(run.epochsDone, run.epochsTotal), formatLoss(run.lastLoss),
                     formatDuration(run.etaSeconds));
    if (!run.message.isEmpty())
        text += Tr::tr("message  %1\n").arg(run.message);
    text += Tr::tr("jobs\n");
    for (const JobRecord &job : jobs) {
        text += Tr::tr("  attempt %1  job %2%7  %3%4  submitted %5%6\n")
                    .arg(job.attempt)
                    .arg(job.jobId, job.state, job.exitCode >= 0 ? Tr::tr(" (exit %1)").arg(job.exitCode) : QString(),
                         job.submitted.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                         job.resumeFrom.isEmpty() ? QString() : Tr::tr("  from %1").arg(job.resumeFrom),
                         labelled ? Tr::tr(" on %1").arg(clusterOfJob(run, job)) : QString());
        if (const QString why = jobWhy(job, requeueExitCode); !why.isEmpty())
            text += Tr::tr("    %1 %2\n").arg(job.hasEnded() ? Tr::tr("ended:") : Tr::tr("waits:"), why);
        if (!job.scheduling.nodes.isEmpty())
            text += Tr::tr("    nodes %1\n").arg(job.scheduling.nodes);
        text += Tr::tr("    log %1\n").arg(job.stdoutPath);
    }
    return text;
}

QJsonObject runJson(const RunRecord &run, const QList<JobRecord> &jobs)
{
    QJsonObject object{
        {QStringLiteral("run"), run.id},
        {QStringLiteral("name"), run.name},
        {QStringLiteral("cluster"), run.cluster},
        {QStringLiteral("state"), run.state},
        {QStringLiteral("created"), run.created.toString(Qt::ISODate)},
        {QStringLiteral("epochs_done"), run.epochsDone},
        {QStringLiteral("epochs_total"), run.epochsTotal >= 0 ? QJsonValue(run.epochsTotal) : QJsonValue()},
        {QStringLiteral("last_loss"), number(run.lastLoss)},
        {QStringLiteral("eta_seconds"), number(run.etaSeconds)},
        {QStringLiteral("message"), run.message},
        {QStringLiteral("note"), run.note},
        {QStringLiteral("tags"), QJsonArray::fromStringList(run.tags)}};
    if (jobs.isEmpty())
        return object;
    const auto startEstimate = [](const JobRecord &job) {
        return job.scheduling.startEstimate.isValid() ? QJsonValue(job.scheduling.startEstimate.toString(Qt::ISODate))
                                                      : QJsonValue();
    };
    QJsonArray array;
    const int requeueExitCode = requeueExitCodeOf(run);
    for (const JobRecord &job : jobs)
        array.append(QJsonObject{{QStringLiteral("attempt"), job.attempt},
                                 {QStringLiteral("job"), job.jobId},
                                 {QStringLiteral("cluster"), clusterOfJob(run, job)},
                                 {QStringLiteral("state"), job.state},
                                 {QStringLiteral("exit_code"), job.exitCode},
                                 {QStringLiteral("scheduler_state"), job.scheduling.state},
                                 {QStringLiteral("reason"), job.scheduling.reason},
                                 {QStringLiteral("start_estimate"), startEstimate(job)},
                                 {QStringLiteral("nodes"), job.scheduling.nodes},
                                 {QStringLiteral("why"), jobWhy(job, requeueExitCode)},
                                 {QStringLiteral("resume_from"), job.resumeFrom},
                                 {QStringLiteral("origin"), job.origin},
                                 {QStringLiteral("stdout"), job.stdoutPath},
                                 {QStringLiteral("metrics"), job.metricsPath}});
    object[u"jobs"] = array;
    // The job that speaks for the run (the one that runs or waits, else the last that ran).
    const JobRecord &speaking = jobs.at(speakingJob(jobs));
    object[u"reason"] = speaking.scheduling.reason;
    object[u"start_estimate"] = startEstimate(speaking);
    object[u"why"] = jobWhy(speaking, requeueExitCode);
    return object;
}

} // namespace torchdeck::term
