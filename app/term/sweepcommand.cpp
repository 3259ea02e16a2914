#include "term/sweepcommand.h"

#include "core/runs/launchrequest.h"
#include "core/runs/restartmechanism.h"
#include "core/runs/sweepgrid.h"
#include "core/runs/sweepplan.h"
#include "core/runs/sweepsubmission.h"
#include "core/runs/sweeptable.h"
#include "term/cancelcommand.h"
#include "term/joboptions.h"
#include "term/runrefresh.h"
#include "term/submitsteps.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUuid>

namespace torchdeck::term {

namespace {

// Whether the base options set what an axis varies: it is to be given in --vary only.
bool setsOutright(const QStringList &base, const QString &name)
{
    for (qsizetype i = 0; i < base.size(); ++i) {
        const QString &arg = base.at(i);
        if (name.startsWith(QStringLiteral("env:"))) {
            if (arg == u"--env" && i + 1 < base.size() && base.at(i + 1).startsWith(name.mid(4) + u'='))
                return true;
        } else if (arg == QStringLiteral("--") + name || arg.startsWith(QStringLiteral("--") + name + u'=')) {
            return true;
        }
    }
    return false;
}

struct SweepArgs {
    QStringList base; // the cluster, job and trainer options every point shares
    QList<SweepAxis> axes;
    bool json = false;
    bool dryRun = false;
    bool noArray = false;
    int maxRunning = 0; // --max-running: an array's tasks at a time (0: no limit)
};

std::optional<SweepArgs> parseSweepArgs(TermContext &context, const QStringList &args)
{
    SweepArgs parsed;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        QString text;
        if (arg == u"--vary" && i + 1 < args.size())
            text = args.at(++i);
        else if (arg.startsWith(QStringLiteral("--vary=")))
            text = arg.mid(7);
        else if (arg == u"--json" || arg == u"--dry-run" || arg == u"--no-array")
            (arg == u"--json" ? parsed.json : arg == u"--dry-run" ? parsed.dryRun : parsed.noArray) = true;
        else if (arg == u"--max-running" || arg.startsWith(QStringLiteral("--max-running="))) {
            const QString value = arg.contains(u'=') ? arg.section(u'=', 1) : args.value(++i);
            bool number = false;
            parsed.maxRunning = value.toInt(&number);
            if (!number || parsed.maxRunning < 1) {
                context.error(Tr::tr("--max-running wants a number of runs at a time, 1 or more: %1").arg(value));
                return std::nullopt;
            }
        } else
            parsed.base.append(arg);
        if (text.isEmpty() && (arg == u"--vary" || arg.startsWith(QStringLiteral("--vary=")))) {
            context.error(Tr::tr("--vary wants NAME=V1,V2,..."));
            return std::nullopt;
        }
        if (!text.isEmpty()) {
            QString problem;
            const std::optional<SweepAxis> axis = parseSweepAxis(text, &problem);
            if (!axis) {
                context.error(problem);
                return std::nullopt;
            }
            parsed.axes.append(*axis);
        }
    }
    if (parsed.axes.isEmpty()) {
        context.error(Tr::tr("what does the sweep vary? --vary NAME=V1,V2,... (e.g. --vary tasks-per-node=1,2)"));
        return std::nullopt;
    }
    for (const SweepAxis &axis : std::as_const(parsed.axes)) {
        if (setsOutright(parsed.base, axis.name)) {
            context.error(Tr::tr("%1 is given and varied: give its values in --vary only").arg(axis.name));
            return std::nullopt;
        }
    }
    return parsed;
}

// A point's values as one JSON object ({"lr": "0.1"}), as submit and the dry run print them.
QJsonObject pointObject(const SweepPoint &point)
{
    return QJsonDocument::fromJson(sweepPointJson(point).toUtf8()).object();
}

void printSubmitted(TermContext &context, const QString &sweepId, const QString &cluster,
                    const QList<std::pair<SweepPlanPoint, LaunchResult>> &submitted, bool json)
{
    if (json) {
        QJsonArray runs;
        for (const auto &[point, result] : submitted)
            runs.append(QJsonObject{{QStringLiteral("run"), result.runId},
                                    {QStringLiteral("job"), result.jobId},
                                    {QStringLiteral("name"), point.request.spec.name},
                                    {QStringLiteral("point"), pointObject(point.point)}});
        context.out() << QJsonDocument(QJsonObject{{QStringLiteral("sweep"), sweepId},
                                                   {QStringLiteral("cluster"), cluster},
                                                   {QStringLiteral("runs"), runs}})
                             .toJson(QJsonDocument::Compact)
                      << '\n'
                      << Qt::flush;
        return;
    }
    context.out() << Tr::tr("sweep %1 (%2): %3 runs on %4\n")
                         .arg(shortRunId(sweepId), sweepId)
                         .arg(submitted.size())
                         .arg(cluster);
    for (const auto &[point, result] : submitted)
        context.out()
            << Tr::tr("  run %1  job %2  %3\n").arg(shortRunId(result.runId), result.jobId, point.point.label());
    context.out()
        << Tr::tr("  its table: torchdeck sweeps %1   follow them: torchdeck watch\n").arg(shortRunId(sweepId))
        << Qt::flush;
}
} // namespace

int runSweepCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("sweep"), out, err);
    const std::optional<SweepArgs> parsed = parseSweepArgs(context, args);
    if (!parsed)
        return UsageError;
    const JobOptions base = parseJobOptions(parsed->base);
    if (!base.error.isEmpty()) {
        context.error(base.error);
        return UsageError;
    }
    if (base.cluster.isEmpty()) {
        context.error(Tr::tr("which cluster? (torchdeck clusters lists them)"));
        return UsageError;
    }
    if (!context.open())
        return Failure;
    const ClusterProfile profile = context.profiles().profile(base.cluster);
    const RestartMechanism mechanism = restartMechanismOf(profile, base);
    JobSpec shared = base.spec;
    shared.requeue = mechanism.inJobRequeue;
    // Every point as submit would send it, each a run of its own, its script checked against what the cluster
    // offers: before anything is sent, and before connecting (the work directory does not change what is refused).
    // Against the cluster's shape where it is fresh, as the agent would check it (an older one it reads again first).
    const SweepPlan plan = planSweep(
        {profile.shapeIsFresh() ? profile : profile.withoutShape(), shared, parsed->axes, parsed->noArray,
         parsed->maxRunning},
        [&context](const LaunchRequest &request) { return context.agent().previewSubmission(request); },
        formatJobErrorsAsOptions);
    if (!plan.ok()) {
        context.error(plan.problem + Tr::tr("; nothing was submitted"));
        return plan.refused > 0 ? Failure : UsageError;
    }
    const qsizetype points = plan.points.size();
    context.err()
        << Tr::tr("torchdeck sweep: %1 points on %2, %3 node-hours at most (nodes x --time%4); restarts: "
                  "%5\n")
               .arg(points)
               .arg(base.cluster)
               .arg(plan.nodeSeconds / 3600.0, 0, 'f', 2)
               .arg(plan.nodeSeconds > 0 ? QString() : Tr::tr(", the partition's default time unknown"), mechanism.why)
        << (plan.asArray()
                ? Tr::tr("torchdeck sweep: one job array of %1 tasks%2\n")
                      .arg(points)
                      .arg(parsed->maxRunning > 0 ? Tr::tr(", at most %1 running at a time").arg(parsed->maxRunning)
                                                  : QString())
                : Tr::tr("torchdeck sweep: %1 separate jobs (not one array: %2)\n").arg(points).arg(plan.notArray))
        << Qt::flush;
    if (parsed->dryRun && parsed->json) {
        QJsonArray runs;
        for (const SweepPlanPoint &point : plan.points)
            runs.append(QJsonObject{{QStringLiteral("name"), point.request.spec.name},
                                    {QStringLiteral("point"), pointObject(point.point)}});
        out << QJsonDocument(QJsonObject{{QStringLiteral("cluster"), base.cluster},
                                         {QStringLiteral("array"), plan.asArray()},
                                         {QStringLiteral("node_hours"), plan.nodeSeconds / 3600.0},
                                         {QStringLiteral("runs"), runs}})
                   .toJson(QJsonDocument::Compact)
            << '\n'
            << Qt::flush;
        return Ok;
    }
    if (parsed->dryRun) {
        for (const SweepPlanPoint &point : plan.points)
            out << point.request.spec.name << "  " << point.point.label() << '\n';
        out << Qt::flush;
        return Ok;
    }
    if (!context.connect(base.cluster) || !waitForWorkDirectory(context, profile))
        return Failure;
    const SweepRecord sweep{QUuid::createUuid().toString(QUuid::WithoutBraces),
                            base.cluster,
                            base.spec.name,
                            {},
                            sweepAxesJson(parsed->axes)};
    // The agent sends the points and joins each run to the sweep: it goes on if this terminal goes away.
    const auto results = followSubmissions(
        context, context.agent().submitSweep(sweep, plan.requests(), plan.asArray(), parsed->maxRunning));
    if (!results) {
        context.error(Tr::tr("what was sent is in torchdeck sweeps %1").arg(shortRunId(sweep.id)));
        return Failure;
    }
    QList<std::pair<SweepPlanPoint, LaunchResult>> submitted;
    for (const LaunchResult &result : *results) {
        for (const SweepPlanPoint &point : plan.points) {
            if (point.request.runId == result.runId)
                submitted.append({point, result});
        }
    }
    printSubmitted(context, sweep.id, base.cluster, submitted, parsed->json);
    return Ok;
}

} // namespace torchdeck::term
