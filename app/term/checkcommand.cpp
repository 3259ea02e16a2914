#include "term/checkcommand.h"

#include "core/agent/agentevents.h"
#include "core/profiles/profilestore.h"
#include "core/runs/checkfindings.h"
#include "core/runs/requeueprobe.h"
#include "term/blocking.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/terminalprompts.h"
#include "term/termtr.h"

#include <QTextStream>

namespace torchdeck::term {

namespace {
constexpr int connectTimeoutMs = 120000; // a person may be typing a one-time code

SchedulerKind schedulerFromName(const QString &name, bool &ok)
{
    ok = true;
    if (name == u"slurm")
        return SchedulerKind::Slurm;
    if (name == u"pbs")
        return SchedulerKind::Pbs;
    if (name == u"local")
        return SchedulerKind::Local;
    ok = false;
    return SchedulerKind::Slurm;
}
// What it found goes to the cluster's profile: new runs there requeue themselves, or not, from now on, and jobs
// are checked against the partitions' limits.
void keepFindings(TermContext &context, const QString &cluster, const QList<CheckItem> &items)
{
    ProfileStore profiles;
    QString problem;
    if (!profiles.load(&problem)) {
        context.error(problem);
        return;
    }
    ClusterProfile profile = profiles.profile(cluster);
    if (!keepCheckFindings(items, &profile, QDateTime::currentDateTime()))
        return;
    profiles.put(profile);
    if (!profiles.save(&problem))
        context.error(problem);
    else
        waitFor(context.agent().profilesChanged(), 5000);
}
} // namespace

int runCheckCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    QString cluster;
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (!args.at(i).startsWith(u'-') && (i == 0 || !args.at(i - 1).startsWith(u'-'))) {
            cluster = args.at(i);
            break;
        }
    }
    // The cluster's profile gives the defaults; the options override them for this check.
    ProfileStore profiles;
    QString problem;
    if (!profiles.load(&problem)) {
        err << "torchdeck check: " << problem << '\n';
        return Failure;
    }
    const ClusterProfile profile = profiles.profile(cluster);
    ClusterCheckSettings settings = profile.checkSettings();
    cluster.clear();
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        const bool hasValue = i + 1 < args.size();
        if (arg == u"--scheduler" && hasValue) {
            bool ok = false;
            settings.scheduler = schedulerFromName(args.at(++i), ok);
            if (!ok) {
                err << Tr::tr("torchdeck check: --scheduler must be slurm, pbs or local\n");
                return UsageError;
            }
        } else if (arg == u"--work-dir" && hasValue) {
            settings.workDirectory = args.at(++i);
        } else if (arg == u"--libtorch" && hasValue) {
            settings.libtorchPrefix = args.at(++i);
        } else if (!arg.startsWith(u'-') && cluster.isEmpty()) {
            cluster = arg;
        } else {
            err << Tr::tr("torchdeck check: unexpected argument '%1' (usage: torchdeck check CLUSTER "
                          "[--scheduler slurm|pbs|local] [--work-dir DIR] [--libtorch PREFIX])\n")
                       .arg(arg);
            return UsageError;
        }
    }
    if (cluster.isEmpty()) {
        err << Tr::tr("torchdeck check: which cluster? (torchdeck clusters lists them)\n");
        return UsageError;
    }
    settings.probeRequeue = settings.probeRequeue && settings.scheduler == SchedulerKind::Slurm;
    out << Tr::tr("Checking %1\n").arg(cluster) << Qt::flush;
    TermContext context(QStringLiteral("check"), out, err);
    context.openStore();
    const OperationOutcome opened = waitFor(context.agent().open(cluster), connectTimeoutMs);
    if (!opened.ok) {
        out << Tr::tr("  \u2717 Connection: %1\n").arg(opened.error);
        if (context.agent().needsYou(cluster) && !hasTerminal())
            out << Tr::tr("    (no terminal to ask on: run `ssh %1 true` once, or torchdeck check in a terminal)\n")
                       .arg(cluster);
        return Failure;
    }
    out << Tr::tr("  \u2713 Connection: reachable, host key known, authenticated\n") << Qt::flush;
    int failures = 0;
    QList<CheckItem> items;
    const OperationOutcome checked =
        waitFor(context.agent().check(cluster, settings), 0, [&](const QString &name, const QCborMap &event) {
            const std::optional<agent::ItemEvent> checkedItem = eventOf<agent::ItemEvent>(name, event);
            if (!checkedItem)
                return;
            const CheckItem *item = &checkedItem->item;
            out << "  "
                << (!item->ok       ? "\u2717 "
                    : item->warning ? "! "
                                    : "\u2713 ")
                << item->name << ": " << item->detail << '\n'
                << Qt::flush;
            failures += item->ok ? 0 : 1;
            items.append(*item);
        });
    if (!checked.ok) {
        out << Tr::tr("  \u2717 %1\n").arg(checked.error);
        return Failure;
    }
    keepFindings(context, cluster, items);
    if (!requeueFinding(items) && settings.scheduler == SchedulerKind::Slurm &&
        profile.inJobRequeue != InJobRequeue::Unknown) {
        out << Tr::tr("  \u2713 In-job requeue: %1, found by an earlier check (torchdeck profile %2 --in-job-requeue "
                      "unknown checks again)\n")
                   .arg(inJobRequeueName(profile.inJobRequeue), cluster);
    }
    out << Qt::flush;
    return failures == 0 ? Ok : Failure;
}

} // namespace torchdeck::term
