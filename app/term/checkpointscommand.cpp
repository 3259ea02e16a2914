#include "term/checkpointscommand.h"

#include "core/agent/agentops.h"
#include "core/jobs/runlayout.h"
#include "core/runs/checkpointinventory.h"
#include "core/scheduler/jobstate.h"
#include "core/shellquote.h"
#include "term/runrefresh.h"
#include "term/runtable.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>

namespace torchdeck::term {

namespace {
constexpr int actionTimeoutMs = 60000;

// What each cluster that holds some of the run's checkpoints lists; one that cannot be reached leaves its checkpoints
// unchecked, said on stderr. `ownMustAnswer` (a deletion): the run's own cluster must answer, or nothing is listed.
std::optional<QHash<QString, QStringList>> listPresent(TermContext &context, const RunRecord &run,
                                                       const CheckpointPlaces &places,
                                                       const QList<CheckpointRecord> &checkpoints, bool ownMustAnswer)
{
    QHash<QString, QStringList> present;
    for (const QString &cluster : places.clusters(checkpoints)) {
        const bool own = cluster == run.cluster && ownMustAnswer;
        if (!context.connect(cluster)) {
            if (own)
                return std::nullopt;
            context.note(Tr::tr("the checkpoints on %1 are listed unchecked").arg(cluster));
            continue;
        }
        const OperationOutcome listed = context.wait(context.agent().presentCheckpoints(cluster, run.id),
                                                     actionTimeoutMs, own ? QString() : cluster);
        if (!listed.ok && own)
            return std::nullopt;
        if (listed.ok)
            present.insert(cluster, listed.reply<agent::Checkpoints>().value_or(agent::Checkpoints::Reply{}).present);
    }
    return present;
}

// Each checkpoint deleted on the cluster it lies on.
int deleteCheckpoints(TermContext &context, const RunRecord &run, const QList<CheckpointEntry> &entries,
                      const QStringList &wanted)
{
    const CheckpointDeletion plan = planCheckpointDeletion(entries, wanted);
    if (!plan.error.isEmpty()) {
        context.error(Tr::tr("run %1: %2").arg(shortRunId(run.id), plan.error));
        return Failure;
    }
    for (auto cluster = plan.byCluster.cbegin(); cluster != plan.byCluster.cend(); ++cluster) {
        QStringList names;
        for (const QString &path : cluster.value())
            names.append(path.section(u'/', -1));
        if (!context.connect(cluster.key()))
            return Failure;
        const OperationOutcome deleted =
            context.wait(context.agent().deleteCheckpoints(cluster.key(), run.id, names), actionTimeoutMs);
        if (!deleted.ok)
            return Failure;
        const agent::DeleteCheckpoints::Reply result =
            deleted.reply<agent::DeleteCheckpoints>().value_or(agent::DeleteCheckpoints::Reply{});
        for (const QString &problem : result.unrecorded)
            context.error(Tr::tr("deleted, but the run store still lists it: %1").arg(problem));
        const QString where = cluster.key() == run.cluster ? QString() : Tr::tr(" on %1").arg(cluster.key());
        for (const QString &path : result.deleted)
            context.out() << Tr::tr("deleted %1").arg(path) << where
                          << (result.gone.contains(path) ? Tr::tr(" (was already gone)") : QString()) << '\n';
    }
    context.out() << Qt::flush;
    return Ok;
}

QJsonArray checkpointsJson(const QList<CheckpointEntry> &entries)
{
    QJsonArray array;
    for (const CheckpointEntry &entry : entries) {
        const CheckpointRecord &c = entry.record;
        array.append(QJsonObject{{QStringLiteral("path"), c.path},
                                 {QStringLiteral("attempt"), c.attempt},
                                 {QStringLiteral("epoch"), c.epoch},
                                 {QStringLiteral("step"), c.step},
                                 {QStringLiteral("bytes"), c.bytes},
                                 {QStringLiteral("time"), std::isfinite(c.time) ? QJsonValue(c.time) : QJsonValue()},
                                 {QStringLiteral("reason"), c.reason},
                                 {QStringLiteral("cluster"), entry.cluster},
                                 {QStringLiteral("present"), entry.checked ? QJsonValue(entry.present) : QJsonValue()},
                                 {QStringLiteral("latest"), entry.latest},
                                 {QStringLiteral("superseded"), entry.setAside},
                                 {QStringLiteral("best"), entry.best}});
    }
    return array;
}

void printCheckpoints(QTextStream &out, const QList<CheckpointEntry> &entries, const QString &runCluster)
{
    out << Tr::tr("STEP     EPOCH  SIZE       WRITTEN              REASON  FILE\n");
    for (const CheckpointEntry &entry : entries) {
        const CheckpointRecord &c = entry.record;
        const QString when =
            std::isfinite(c.time)
                ? QDateTime::fromMSecsSinceEpoch(qint64(c.time * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                : QStringLiteral("-");
        const QString size =
            c.bytes >= 0 ? QString::number(double(c.bytes) / 1048576.0, 'f', 2) + Tr::tr(" MiB") : QStringLiteral("-");
        QStringList marks;
        if (entry.latest)
            marks.append(Tr::tr("latest"));
        if (entry.best)
            marks.append(Tr::tr("best val loss"));
        if (entry.cluster != runCluster)
            marks.append(Tr::tr("on %1").arg(entry.cluster));
        if (!entry.checked)
            marks.append(Tr::tr("not checked"));
        else if (!entry.present)
            marks.append(Tr::tr("gone: rotated out (--keep) or deleted"));
        else if (entry.setAside)
            marks.append(Tr::tr("set aside by a resume from an older one: %1").arg(c.path.section(u'/', -2, -2)));
        const QString mark =
            marks.isEmpty() ? QString() : QStringLiteral("  (%1)").arg(marks.join(QStringLiteral(", ")));
        out << QStringLiteral("%1  %2  %3  %4  %5  %6%7\n")
                   .arg(c.step, -7)
                   .arg(c.epoch, 5)
                   .arg(size, -9)
                   .arg(when, -19)
                   .arg(c.reason, -6)
                   .arg(c.path.section(u'/', -1), mark);
    }
}
} // namespace

int runCheckpointsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("checkpoints"), out, err);
    QString runText;
    bool json = false;
    QStringList toDelete;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--json")
            json = true;
        else if (arg == u"--delete" && i + 1 < args.size())
            toDelete.append(args.at(++i));
        else if (!arg.startsWith(u'-') && runText.isEmpty())
            runText = arg;
        else {
            context.error(Tr::tr("unexpected argument '%1' (usage: torchdeck checkpoints RUN [--json] "
                                 "[--delete STEP|FILE]...)")
                              .arg(arg));
            return UsageError;
        }
    }
    const auto run = context.openRun(runText);
    if (!run)
        return Failure;
    if (!run->hasEnded())
        refreshRuns(context, {*run});
    const auto checkpoints = context.store().checkpoints(run->id);
    if (!checkpoints.ok()) {
        context.error(checkpoints.error);
        return Failure;
    }
    const auto jobs = context.store().jobs(run->id);
    const CheckpointPlaces places(run->cluster, jobs.ok() ? jobs.value : QList<JobRecord>{});
    QHash<QString, QStringList> present;
    if (!checkpoints.value.isEmpty()) {
        const auto listed = listPresent(context, *run, places, checkpoints.value, !toDelete.isEmpty());
        if (!listed)
            return Failure;
        present = *listed;
    }
    const auto series = context.store().runSeries(run->id);
    const QList<CheckpointEntry> entries =
        markCheckpoints(checkpoints.value, places, present, series.ok() ? series.value : RunSeries{});
    if (!toDelete.isEmpty())
        return deleteCheckpoints(context, *run, entries, toDelete);
    if (json) {
        out << QJsonDocument(checkpointsJson(entries)).toJson(QJsonDocument::Compact) << '\n' << Qt::flush;
        return Ok;
    }
    if (entries.isEmpty()) {
        out << Tr::tr("run %1 has no checkpoints yet\n").arg(shortRunId(run->id)) << Qt::flush;
        return Ok;
    }
    printCheckpoints(out, entries, run->cluster);
    out << Tr::tr("resume with: torchdeck resume %1 [--from STEP|FILE] [--epochs N]\n").arg(shortRunId(run->id))
        << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
