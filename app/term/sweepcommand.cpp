#include "term/sweepcommand.h"

#include "core/jobs/jobspecvalidation.h"
#include "core/runs/launchrequest.h"
#include "core/runs/restartmechanism.h"
#include "core/runs/sweepgrid.h"
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
constexpr int mostSweepPoints = 500;

// The job options that set one varied value: `--NAME VALUE`, or `--env NAME=VALUE`.
QStringList optionsOf(const QString &name, const QString &value)
{
    if (name.startsWith(QStringLiteral("env:")))
        return {QStringLiteral("--env"), name.mid(4) + u'=' + value};
    return {QStringLiteral("--") + name, value};
}

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

struct Point {
    SweepPoint point;
    LaunchRequest request;
};

void printSubmitted(TermContext &context, const QString &sweepId, const QString &cluster,
                    const QList<std::pair<Point, LaunchResult>> &submitted, bool json)
{
    if (json) {
        QJsonArray runs;
        for (const auto &[point, result] : submitted)
            runs.append(QJsonObject{
                {QStringLiteral("run"), result.runId},
                {QStringLiteral("job"), result.jobId},
                {QStringLiteral("name"), point.request.spec.name},
                {QStringLiteral("point"), QJsonDocument::fromJson(sweepPointJson(point.point).toUtf8()).object()}});
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
    QString problem;
    const std::optional<QList<SweepPoint>> grid = sweepGrid(parsed->axes, mostSweepPoints, &problem);
    if (!grid) {
        context.error(problem);
        return UsageError;
    }
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
    // Every point as submit would send it, each a run of its own.
    QList<Point> points;
    double nodeSeconds = 0;
    for (const SweepPoint &point : *grid) {
        QStringList pointArgs = parsed->base;
        for (const auto &[name, value] : point.values)
            pointArgs += optionsOf(name, value);
        const JobOptions options = parseJobOptions(pointArgs);
        if (!options.error.isEmpty()) {
            context.error(Tr::tr("%1: %2; nothing was submitted").arg(point.label(), options.error));
            return UsageError;
        }
        JobSpec spec = options.spec;
        spec.name = sweepPointName(base.spec.name.isEmpty() ? QStringLiteral("sweep") : base.spec.name, point);
        spec.requeue = mechanism.inJobRequeue;
        LaunchRequest request = newRunRequest(profile, spec);
        request.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        nodeSeconds += double(spec.nodes) * double(spec.wallTimeSeconds);
        points.append({point, request});
    }
    if (!context.connect(base.cluster) || !waitForWorkDirectory(context, profile))
        return Failure;
    // Before anything is sent: each point's script, checked against what the cluster offers.
    QStringList refusals;
    int refused = 0;
    QList<SubmissionScript> previews;
    for (const Point &point : std::as_const(points)) {
        const SubmissionScript rendered = context.agent().previewSubmission(point.request);
        previews.append(rendered);
        if (rendered.ok())
            continue;
        ++refused;
        for (const QString &line : formatJobSpecErrors(rendered.errors).split(u'\n'))
            refusals.append(QStringLiteral("  %1: %2").arg(point.point.label(), line));
    }
    if (refused > 0) {
        context.error(Tr::tr("%1 of %2 points cannot run on %3; nothing was submitted:\n%4")
                          .arg(refused)
                          .arg(points.size())
                          .arg(base.cluster, refusals.join(u'\n')));
        return Failure;
    }
    const QString notArray =
        parsed->noArray ? QStringLiteral("--no-array") : arrayRefusal(profile.caps(), previews, parsed->maxRunning);
    const bool array = notArray.isEmpty();
    if (!array && parsed->maxRunning > 0) {
        context.error(Tr::tr("--max-running needs the points to go as one job array, and they cannot: %1; nothing "
                             "was submitted")
                          .arg(notArray));
        return UsageError;
    }
    context.err()
        << Tr::tr("torchdeck sweep: %1 points on %2, %3 node-hours at most (nodes x --time%4); restarts: "
                  "%5\n")
               .arg(points.size())
               .arg(base.cluster)
               .arg(nodeSeconds / 3600.0, 0, 'f', 2)
               .arg(nodeSeconds > 0 ? QString() : Tr::tr(", the partition's default time unknown"), mechanism.why)
        << (array ? Tr::tr("torchdeck sweep: one job array of %1 tasks%2\n")
                        .arg(points.size())
                        .arg(parsed->maxRunning > 0 ? Tr::tr(", at most %1 running at a time").arg(parsed->maxRunning)
                                                    : QString())
                  : Tr::tr("torchdeck sweep: %1 separate jobs (not one array: %2)\n").arg(points.size()).arg(notArray))
        << Qt::flush;
    if (parsed->dryRun) {
        for (const Point &point : std::as_const(points))
            out << point.request.spec.name << "  " << point.point.label() << '\n';
        out << Qt::flush;
        return Ok;
    }
    const SweepRecord sweep{QUuid::createUuid().toString(QUuid::WithoutBraces),
                            base.cluster,
                            base.spec.name,
                            {},
                            sweepAxesJson(parsed->axes)};
    QList<SweepPointRequest> requests;
    for (const Point &point : std::as_const(points))
        requests.append({sweepPointJson(point.point), point.request});
    // The agent sends the points and joins each run to the sweep: it goes on if this terminal goes away.
    const auto results =
        followSubmissions(context, context.agent().submitSweep(sweep, requests, array, parsed->maxRunning));
    if (!results) {
        context.error(Tr::tr("what was sent is in torchdeck sweeps %1").arg(shortRunId(sweep.id)));
        return Failure;
    }
    QList<std::pair<Point, LaunchResult>> submitted;
    for (const LaunchResult &result : *results) {
        for (const Point &point : std::as_const(points)) {
            if (point.request.runId == result.runId)
                submitted.append({point, result});
        }
    }
    printSubmitted(context, sweep.id, base.cluster, submitted, parsed->json);
    return Ok;
}

} // namespace torchdeck::term
