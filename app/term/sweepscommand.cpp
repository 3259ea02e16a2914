// `torchdeck sweeps`: the sweeps `sweep` submitted, and one sweep's table (scaling or hyperparameters).
#include "core/agent/agentops.h"
#include "core/runs/sweepgrid.h"
#include "core/runs/sweeptable.h"
#include "core/scheduler/jobstate.h"
#include "term/cancelcommand.h"
#include "term/render/linechart.h"
#include "term/runrefresh.h"
#include "term/runtable.h"
#include "term/submitcommand.h"
#include "term/sweepcommand.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <unistd.h>

namespace torchdeck::term {

namespace {
constexpr int resumeTimeoutMs = 30 * 60 * 1000; // a pass, then a submission per run (a deployment, perhaps)

struct SweepsArgs {
    QString sweep;
    bool json = false;
    bool markdown = false;
    bool csv = false;
    bool cancel = false;
    bool resume = false;
    bool remove = false; // --delete
    bool offline = false;
};

std::optional<SweepsArgs> parseSweepsArgs(TermContext &context, const QStringList &args)
{
    SweepsArgs parsed;
    for (const QString &arg : args) {
        if (arg == u"--json")
            parsed.json = true;
        else if (arg == u"--markdown")
            parsed.markdown = true;
        else if (arg == u"--csv")
            parsed.csv = true;
        else if (arg == u"--cancel")
            parsed.cancel = true;
        else if (arg == u"--resume")
            parsed.resume = true;
        else if (arg == u"--delete")
            parsed.remove = true;
        else if (arg == u"--offline")
            parsed.offline = true;
        else if (!arg.startsWith(u'-') && parsed.sweep.isEmpty())
            parsed.sweep = arg;
        else {
            context.error(Tr::tr("unexpected argument '%1' (usage: torchdeck sweeps [SWEEP] [--json | --markdown | "
                                 "--csv] [--cancel | --resume | --delete] [--offline])")
                              .arg(arg));
            return std::nullopt;
        }
    }
    if (int(parsed.json) + int(parsed.markdown) + int(parsed.csv) > 1) {
        context.error(Tr::tr("one of --json, --markdown and --csv"));
        return std::nullopt;
    }
    if (int(parsed.cancel) + int(parsed.resume) + int(parsed.remove) > 1) {
        context.error(Tr::tr("one of --cancel, --resume and --delete"));
        return std::nullopt;
    }
    if ((parsed.markdown || parsed.csv || parsed.cancel || parsed.resume || parsed.remove) && parsed.sweep.isEmpty()) {
        context.error(Tr::tr("which sweep? (torchdeck sweeps lists them)"));
        return std::nullopt;
    }
    return parsed;
}

QString statesSummary(const QList<RunRecord> &runs)
{
    QMap<QString, int> counts;
    for (const RunRecord &run : runs)
        ++counts[run.state];
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        parts.append(QStringLiteral("%1 %2").arg(it.value()).arg(it.key()));
    return parts.join(QStringLiteral(", "));
}

int listSweeps(TermContext &context, const QList<SweepRecord> &sweeps, bool json)
{
    QJsonArray array;
    QString text;
    for (const SweepRecord &sweep : sweeps) {
        const QList<RunRecord> runs = context.runsOf(context.store().sweepMembers(sweep.id).value);
        QStringList varied;
        for (const SweepAxis &axis : sweepAxesOf(sweep))
            varied.append(axis.name);
        array.append(QJsonObject{{QStringLiteral("sweep"), sweep.id},
                                 {QStringLiteral("name"), sweep.name},
                                 {QStringLiteral("cluster"), sweep.cluster},
                                 {QStringLiteral("created"), sweep.created.toString(Qt::ISODate)},
                                 {QStringLiteral("varied"), QJsonArray::fromStringList(varied)},
                                 {QStringLiteral("runs"), runs.size()},
                                 {QStringLiteral("states"), statesSummary(runs)}});
        text += QStringLiteral("%1  %2  %3  %4  varies %5: %6\n")
                    .arg(shortRunId(sweep.id), sweep.name, sweep.cluster,
                         sweep.created.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                         varied.join(QStringLiteral(", ")), statesSummary(runs));
    }
    if (json)
        context.out() << QJsonDocument(QJsonObject{{QStringLiteral("sweeps"), array}}).toJson(QJsonDocument::Compact)
                      << '\n';
    else
        context.out() << (sweeps.isEmpty() ? Tr::tr("No sweeps yet. Start one with: torchdeck sweep CLUSTER --model ae "
                                                    "--epochs 3 --vary tasks-per-node=1,2\n")
                                           : text);
    context.out() << Qt::flush;
    return Ok;
}

QString alignedTable(const QList<SweepRow> &rows)
{
    QList<QStringList> cells;
    for (const SweepRow &row : rows)
        cells.append(sweepTableCells(row));
    return formatColumns(sweepTableHeader(rows), cells);
}

// Speedup against ranks (the best point of each rank count) over the ideal line, ranks / the fewest ranks.
QString speedupChart(const QList<SweepRow> &rows)
{
    QMap<int, double> best;
    for (const SweepRow &row : rows) {
        if (!std::isnan(row.speedup))
            best[row.ranks] = std::max(best.value(row.ranks, 0.0), row.speedup);
    }
    if (best.size() < 2)
        return {};
    MetricSeries measured;
    MetricSeries ideal;
    for (auto it = best.cbegin(); it != best.cend(); ++it) {
        measured.append(it.key(), it.value(), 0);
        ideal.append(it.key(), double(it.key()) / double(best.firstKey()), 0);
    }
    constexpr int idealColor = 245; // grey
    constexpr int speedupColor = 39;
    LineChartOptions options;
    options.title = Tr::tr("speedup");
    options.xName = Tr::tr("ranks");
    const bool terminal = ::isatty(STDOUT_FILENO) == 1;
    options.useColor = terminal && qEnvironmentVariableIsEmpty("NO_COLOR");
    QString chart =
        renderLineChart({{&measured, Tr::tr("measured"), speedupColor}, {&ideal, Tr::tr("ideal"), idealColor}}, options,
                        72, 14)
            .join(u'\n') +
        u'\n';
    static const QRegularExpression attributes(QStringLiteral("\x1b\\[[0-9;]*m"));
    return terminal ? chart : chart.remove(attributes); // a file or a pipe gets plain text
}

// Every point that ended short of completing goes on as a new job of its run, from its latest checkpoint: the
// agent chooses them after a pass over the sweep's runs.
int resumeSweep(TermContext &context, const SweepRecord &sweep)
{
    if (!context.connect(sweep.cluster))
        return Failure;
    const OperationOutcome outcome =
        context.wait(context.agent().resumeSweep(sweep.cluster, sweep.id), resumeTimeoutMs, sweep.cluster);
    const std::optional<agent::ResumeSweep::Reply> reply = outcome.reply<agent::ResumeSweep>();
    if (!reply)
        return Failure;
    for (const LaunchResult &result : reply->resumed)
        context.out() << Tr::tr("run %1 (%2), attempt %3: job %4 on %5\n")
                             .arg(shortRunId(result.runId), result.runId)
                             .arg(result.attempt)
                             .arg(result.jobId, sweep.cluster);
    for (const QString &problem : reply->problems)
        context.error(problem);
    if (reply->resumed.isEmpty() && reply->problems.isEmpty())
        context.out() << Tr::tr("every run of the sweep has completed or still goes on: nothing to resume\n");
    context.out() << Qt::flush;
    return reply->problems.isEmpty() ? Ok : Failure;
}

// The sweep and its runs leave this machine's store once none of them goes on (the agent decides, and writes the
// store); their files stay on the cluster.
int deleteSweep(TermContext &context, const SweepRecord &sweep, bool offline)
{
    const OperationOutcome outcome =
        context.wait(context.agent().deleteSweep(sweep.cluster, sweep.id, !offline), resumeTimeoutMs, sweep.cluster);
    const std::optional<agent::DeleteSweep::Reply> reply = outcome.reply<agent::DeleteSweep>();
    if (!reply)
        return Failure; // said: why (runs that go on are cancelled first: torchdeck sweeps SWEEP --cancel)
    context.out() << Tr::tr("sweep %1 (%2) deleted with its %3 runs from this machine; their directories stay on %4 "
                            "(<work directory>/runs/<run id>)\n")
                         .arg(shortRunId(sweep.id), sweep.name)
                         .arg(reply->runs)
                         .arg(sweep.cluster)
                  << Qt::flush;
    return Ok;
}

int showSweep(TermContext &context, const SweepRecord &sweep, const SweepsArgs &args)
{
    const auto members = context.store().sweepMembers(sweep.id);
    if (!members.ok()) {
        context.error(members.error);
        return Failure;
    }
    QList<RunRecord> runs = context.runsOf(members.value);
    if (args.cancel) {
        QStringList ids;
        for (const RunRecord &run : std::as_const(runs))
            ids.append(run.id);
        return ids.isEmpty() ? Ok : runCancelCommand(ids, context.out(), context.err());
    }
    if (args.resume)
        return resumeSweep(context, sweep);
    if (args.remove)
        return deleteSweep(context, sweep, args.offline);
    bool reached = true;
    if (!args.offline &&
        std::any_of(runs.cbegin(), runs.cend(), [](const RunRecord &run) { return !run.hasEnded(); })) {
        reached = refreshRuns(context, runs);
        runs = context.runsOf(members.value);
    }
    const bool scaling = isScalingSweep(sweep);
    const QList<SweepRow> rows = sweepRowsOf(context.store(), sweep, members.value, runs);
    QTextStream &out = context.out();
    if (args.json) {
        QJsonArray points;
        for (const SweepRow &row : std::as_const(rows))
            points.append(sweepRowToJson(row));
        out << QJsonDocument(QJsonObject{{QStringLiteral("sweep"), sweep.id},
                                         {QStringLiteral("name"), sweep.name},
                                         {QStringLiteral("cluster"), sweep.cluster},
                                         {QStringLiteral("kind"),
                                          scaling ? QStringLiteral("scaling") : QStringLiteral("hyperparameters")},
                                         {QStringLiteral("points"), points}})
                   .toJson(QJsonDocument::Compact)
            << '\n';
    } else if (args.markdown) {
        out << sweepMarkdown(rows);
    } else if (args.csv) {
        out << sweepCsv(rows);
    } else {
        out << Tr::tr("sweep %1 (%2) on %3: %4, %5\n")
                   .arg(shortRunId(sweep.id), sweep.name, sweep.cluster,
                        scaling ? Tr::tr("speedup against the fewest ranks") : Tr::tr("the best validation loss first"),
                        statesSummary(runs))
            << alignedTable(rows) << (scaling ? speedupChart(rows) : QString());
    }
    out << Qt::flush;
    return reached ? Ok : Failure;
}
} // namespace

int runSweepsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("sweeps"), out, err);
    const std::optional<SweepsArgs> parsed = parseSweepsArgs(context, args);
    if (!parsed)
        return UsageError;
    if (!context.open())
        return Failure;
    const auto sweeps = context.store().sweeps();
    if (!sweeps.ok()) {
        context.error(sweeps.error);
        return Failure;
    }
    if (parsed->sweep.isEmpty())
        return listSweeps(context, sweeps.value, parsed->json);
    const std::optional<SweepRecord> sweep = context.findSweep(parsed->sweep, sweeps.value);
    return sweep ? showSweep(context, *sweep, *parsed) : Failure;
}

} // namespace torchdeck::term
