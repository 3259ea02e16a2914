#include "term/runscommand.h"

#include "core/agent/agentops.h"
#include "core/metrics/resourcesample.h"
#include "core/metrics/slowestrank.h"
#include "core/runs/jobscheduling.h"
#include "core/runs/restartdecision.h"
#include "core/runs/runbudget.h"
#include "core/runs/startestimate.h"
#include "core/scheduler/jobstate.h"
#include "term/runrefresh.h"
#include "term/runtable.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck::term {

namespace {
struct Flags {
    QString run;
    bool json = false;
    bool offline = false;
    QString cluster;
    QStringList tags; // runs --tag: those with every one
};

// What the run's running job uses now, stored with the run; a sample that fails is said, not fatal.
void sampleResources(TermContext &context, const RunRecord &run)
{
    const OperationOutcome sampled = context.wait(context.agent().sampleResources(run.cluster, {run.id}), 60000);
    for (const QString &problem : sampled.reply<agent::Resources>().value_or(agent::Resources::Reply{}).problems)
        context.err() << Tr::tr("torchdeck: %1\n").arg(problem) << Qt::flush;
}

QString sampleAge(double time)
{
    const double seconds = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0 - time;
    return seconds < 90 ? Tr::tr("sampled %1 s ago").arg(std::max(0.0, seconds), 0, 'f', 0)
                        : Tr::tr("sampled at %1")
                              .arg(QDateTime::fromMSecsSinceEpoch(qint64(time * 1000))
                                       .toString(QStringLiteral("yyyy-MM-dd HH:mm")));
}

std::optional<Flags> parseFlags(TermContext &context, const QStringList &args, bool wantsRun)
{
    Flags flags;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--json")
            flags.json = true;
        else if (arg == u"--offline")
            flags.offline = true;
        else if (arg == u"--cluster" && !wantsRun && i + 1 < args.size())
            flags.cluster = args.at(++i);
        else if (arg == u"--tag" && !wantsRun && i + 1 < args.size())
            flags.tags.append(args.at(++i));
        else if (wantsRun && !arg.startsWith(u'-') && flags.run.isEmpty())
            flags.run = arg;
        else {
            context.error(Tr::tr("unexpected argument '%1' (see torchdeck --help)").arg(arg));
            return std::nullopt;
        }
    }
    return flags;
}
} // namespace

int runRunsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("runs"), out, err);
    const auto flags = parseFlags(context, args, false);
    if (!flags)
        return UsageError;
    if (!context.open())
        return Failure;
    auto runs = context.store().runs(flags->cluster);
    if (!runs.ok()) {
        context.error(runs.error);
        return Failure;
    }
    const auto tagged = [&flags](QList<RunRecord> &list) {
        list.removeIf([&flags](const RunRecord &run) {
            return std::any_of(flags->tags.cbegin(), flags->tags.cend(),
                               [&run](const QString &tag) { return !run.tags.contains(tag); });
        });
    };
    tagged(runs.value);
    bool reachedAll = true;
    if (!flags->offline &&
        std::any_of(runs.value.cbegin(), runs.value.cend(), [](const RunRecord &run) { return !run.hasEnded(); })) {
        reachedAll = refreshRuns(context, runs.value);
        runs = context.store().runs(flags->cluster);
        tagged(runs.value);
    }
    // Why each run that has not completed waits or how it ended, from the job that speaks for it.
    QHash<QString, QString> why;
    for (const RunRecord &run : std::as_const(runs.value)) {
        if (run.jobState() == JobState::Completed)
            continue;
        const auto jobs = context.store().jobs(run.id);
        if (jobs.ok() && !jobs.value.isEmpty())
            why.insert(run.id, jobWhy(jobs.value.at(speakingJob(jobs.value)), requeueExitCodeOf(run)));
    }
    if (flags->json) {
        QJsonArray array;
        for (const RunRecord &run : std::as_const(runs.value)) {
            QJsonObject object = runJson(run, {});
            object[u"why"] = why.value(run.id);
            array.append(object);
        }
        out << QJsonDocument(array).toJson(QJsonDocument::Compact) << '\n';
    } else if (runs.value.isEmpty() && !flags->tags.isEmpty()) {
        out << Tr::tr("No runs tagged %1\n").arg(flags->tags.join(QStringLiteral(", ")));
    } else if (runs.value.isEmpty() && !flags->cluster.isEmpty()) {
        out << Tr::tr("No runs on %1\n").arg(flags->cluster);
    } else if (runs.value.isEmpty()) {
        out << Tr::tr("No runs yet. Start one with: torchdeck submit CLUSTER --model ae --epochs 2\n");
    } else {
        out << formatRunTable(runs.value, why);
    }
    out << Qt::flush;
    return reachedAll ? Ok : Failure;
}

int runStatusCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("status"), out, err);
    const auto flags = parseFlags(context, args, true);
    if (!flags)
        return UsageError;
    auto run = context.openRun(flags->run);
    if (!run)
        return Failure;
    bool reached = true;
    if (!flags->offline && !run->hasEnded()) {
        reached = refreshRuns(context, {*run});
        run = context.store().run(run->id).value;
        if (reached && !run->hasEnded())
            sampleResources(context, *run);
    }
    const auto jobs = context.store().jobs(run->id);
    const JobSpec::FromJson spec = run->spec();
    const auto series = context.store().runSeries(run->id);
    const WallTimeBudget budget =
        spec.ok() && series.ok() ? budgetFromSeries(spec.spec, series.value) : WallTimeBudget{};
    const bool running = !jobs.value.isEmpty() && jobStateFromName(jobs.value.constLast().state) == JobState::Running;
    const CheckpointOutlook outlook =
        running && spec.ok() && series.ok()
            ? outlookFromSeries(spec.spec, series.value, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0)
            : CheckpointOutlook{};
    const SlowestRank slowest = series.ok() ? slowestRank(series.value.info().rankComputeSeconds) : SlowestRank{};
    const Placement placement = placementFromJson(run->placement);
    const QString restarts = spec.ok()
                                 ? Tr::tr("%1, %2 of %3 used (torchdeck auto-restart %4 on|off)")
                                       .arg(run->autoRestart ? Tr::tr("automatic") : Tr::tr("off for this run"))
                                       .arg(restartsUsed(jobs.value, {}, series.ok() ? series.value.info() : RunInfo{}))
                                       .arg(spec.spec.maxRestarts)
                                       .arg(shortRunId(run->id))
                                 : QString();
    if (flags->json) {
        QJsonObject object = runJson(*run, jobs.value);
        object[u"auto_restart"] = run->autoRestart;
        if (placement.isSet()) {
            QJsonObject placed = QJsonDocument::fromJson(run->placement.toUtf8()).object();
            placed[u"summary"] = placementWhy(placement);
            object[u"placement"] = placed;
        }
        if (budget.known)
            object[u"budget"] = QJsonObject{{QStringLiteral("epochs_per_job"), budget.epochsPerJob},
                                            {QStringLiteral("reaches_checkpoint"), budget.reachesCheckpoint},
                                            {QStringLiteral("suggested_lead_seconds"), budget.suggestedLeadSeconds},
                                            {QStringLiteral("summary"), budget.summary}};
        if (series.ok() && !series.value.lastResources().isEmpty())
            object[u"resources"] = resourceJson(series.value.lastResources());
        if (slowest.rank >= 0)
            object[u"slowest_rank"] = QJsonObject{{QStringLiteral("rank"), slowest.rank},
                                                  {QStringLiteral("ratio"), slowest.ratio},
                                                  {QStringLiteral("seconds"), slowest.seconds},
                                                  {QStringLiteral("median_seconds"), slowest.median},
                                                  {QStringLiteral("summary"), slowestRankSummary(slowest)}};
        if (outlook.known)
            object[u"next_checkpoint"] = QJsonObject{{QStringLiteral("in_seconds"), outlook.nextCheckpointIn},
                                                     {QStringLiteral("signal_in_seconds"), outlook.signalIn},
                                                     {QStringLiteral("fits"), outlook.fits},
                                                     {QStringLiteral("summary"), outlook.summary}};
        out << QJsonDocument(object).toJson(QJsonDocument::Compact) << '\n';
    } else {
        out << formatRunStatus(*run, jobs.value);
        if (placement.isSet())
            out << Tr::tr("placed   %1\n").arg(placementWhy(placement));
        if (!run->tags.isEmpty())
            out << Tr::tr("tags     %1\n").arg(run->tags.join(QStringLiteral(", ")));
        if (!run->note.isEmpty())
            out << Tr::tr("note     %1\n").arg(QString(run->note).replace(u'\n', QStringLiteral("\n         ")));
        if (budget.known)
            out << Tr::tr("budget   %1\n").arg(budget.summary);
        if (outlook.known)
            out << Tr::tr("now      %1\n").arg(outlook.summary);
        if (!restarts.isEmpty())
            out << Tr::tr("restarts %1\n").arg(restarts);
        if (slowest.rank >= 0)
            out << Tr::tr("ranks    %1\n").arg(slowestRankSummary(slowest));
        if (series.ok() && !series.value.lastResources().isEmpty())
            out << (run->hasEnded() ? Tr::tr("used     %1 (%2, before it ended)\n") : Tr::tr("uses     %1 (%2)\n"))
                       .arg(resourceSummary(series.value.lastResources()),
                            sampleAge(series.value.lastResources().time));
    }
    out << Qt::flush;
    return reached ? Ok : Failure;
}

int runAutoRestartCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("auto-restart"), out, err);
    const QString setting = args.value(1);
    if (args.isEmpty() || args.size() > 2 || (!setting.isEmpty() && setting != u"on" && setting != u"off")) {
        context.error(Tr::tr("usage: torchdeck auto-restart RUN [on|off]"));
        return UsageError;
    }
    const auto run = context.openRun(args.constFirst());
    if (!run)
        return Failure;
    if (!setting.isEmpty() && (setting == u"on") != run->autoRestart) {
        // On again: a job that stopped to be requeued meanwhile is restarted now, by the agent as always.
        const bool on = setting == u"on";
        if (on && run->hasEnded() && !context.connect(run->cluster))
            return Failure;
        const OperationOutcome switched =
            context.wait(context.agent().setAutoRestart(run->cluster, run->id, on), 120000);
        if (!switched.ok)
            return Failure;
        const agent::AutoRestart::Reply result =
            switched.reply<agent::AutoRestart>().value_or(agent::AutoRestart::Reply{});
        if (!result.job.isEmpty())
            out << Tr::tr("run %1 restarted as job %2\n").arg(shortRunId(run->id), result.job);
        else if (!result.error.isEmpty())
            context.error(result.error);
    }
    const auto now = context.store().run(run->id);
    out << Tr::tr("run %1: automatic restart %2\n")
               .arg(shortRunId(run->id), now.ok() && now.value && now.value->autoRestart ? Tr::tr("on") : Tr::tr("off"))
        << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
