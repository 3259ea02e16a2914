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

int deleteCheckpoints(TermContext &context, const RunRecord &run, const QStringList &wanted)
{
    if (!context.connect(run.cluster))
        return Failure;
    const OperationOutcome deleted =
        context.wait(context.agent().deleteCheckpoints(run.cluster, run.id, wanted), actionTimeoutMs);
    if (!deleted.ok)
        return Failure;
    const agent::DeleteCheckpoints::Reply result =
        deleted.reply<agent::DeleteCheckpoints>().value_or(agent::DeleteCheckpoints::Reply{});
    for (const QString &problem : result.unrecorded)
        context.error(Tr::tr("deleted, but the run store still lists it: %1").arg(problem));
    for (const QString &path : result.deleted)
        context.out() << Tr::tr("deleted %1").arg(path)
                      << (result.gone.contains(path) ? Tr::tr(" (was already gone)") : QString()) << '\n';
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
                                 {QStringLiteral("present"), entry.present},
                                 {QStringLiteral("latest"), entry.latest},
                                 {QStringLiteral("superseded"), entry.setAside},
                                 {QStringLiteral("best"), entry.best}});
    }
    return array;
}

void printCheckpoints(QTextStream &out, const QList<CheckpointEntry> &entries)
{
    out << Tr::tr("STEP     EPOCH  SIZE       WRITTEN              REASON  FILE\n");
    for (const CheckpointEntry &entry : entries) {
        const CheckpointRecord &c = entry.record;
        const QString when =
            std::isfinite(c.time)
                ? QDateTime::fromMSecsSinceEpoch(qint64(c.time * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                : QStringLiteral("-");
        const QString size =
            c.bytes >= 0 ? QString::number(double(c.bytes) / 1048576.0, 'f', 2) + Tr::tr(" MB") : QStringLiteral("-");
        QStringList marks;
        if (entry.latest)
            marks.append(Tr::tr("latest"));
        if (entry.best)
            marks.append(Tr::tr("best val loss"));
        if (!entry.present)
            marks.append(Tr::tr("deleted"));
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
    if (!toDelete.isEmpty())
        return deleteCheckpoints(context, *run, toDelete);
    QStringList present;
    if (!checkpoints.value.isEmpty()) {
        if (!context.connect(run->cluster))
            return Failure;
        const OperationOutcome listed =
            context.wait(context.agent().presentCheckpoints(run->cluster, run->id), actionTimeoutMs);
        if (!listed.ok)
            return Failure;
        present = listed.reply<agent::Checkpoints>().value_or(agent::Checkpoints::Reply{}).present;
    }
    const auto series = context.store().runSeries(run->id);
    const QList<CheckpointEntry> entries =
        markCheckpoints(checkpoints.value, present, series.ok() ? series.value : RunSeries{});
    if (json) {
        out << QJsonDocument(checkpointsJson(entries)).toJson(QJsonDocument::Compact) << '\n' << Qt::flush;
        return Ok;
    }
    if (entries.isEmpty()) {
        out << Tr::tr("run %1 has no checkpoints yet\n").arg(shortRunId(run->id)) << Qt::flush;
        return Ok;
    }
    printCheckpoints(out, entries);
    out << Tr::tr("resume with: torchdeck resume %1 [--from STEP|FILE] [--epochs N]\n").arg(shortRunId(run->id))
        << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
