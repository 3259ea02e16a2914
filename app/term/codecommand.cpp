#include "term/codecommand.h"

#include "core/agent/agentops.h"
#include "core/jobs/jobspec.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QMap>

namespace torchdeck::term {

namespace {

constexpr int codeTimeoutMs = 5 * 60 * 1000; // a prune reads every manifest

struct SnapshotUse {
    QList<const RunRecord *> runs;
    bool needed = false; // by a run that has not ended
};

QMap<QString, SnapshotUse> snapshotUses(const QList<RunRecord> &runs)
{
    QMap<QString, SnapshotUse> uses;
    for (const RunRecord &run : runs) {
        const JobSpec::FromJson spec = run.spec();
        if (!spec.ok() || spec.spec.codeSnapshot.isEmpty())
            continue;
        SnapshotUse &use = uses[spec.spec.codeSnapshot];
        use.runs.append(&run);
        use.needed = use.needed || !run.hasEnded();
    }
    return uses;
}

QString size(qint64 bytes)
{
    return QLocale::c().formattedDataSize(bytes);
}

} // namespace

int runCodeCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("code"), out, err);
    QString cluster;
    bool prune = false;
    bool json = false;
    for (const QString &arg : args) {
        if (arg == u"--prune")
            prune = true;
        else if (arg == u"--json")
            json = true;
        else if (!arg.startsWith(u'-') && cluster.isEmpty())
            cluster = arg;
        else {
            context.error(
                Tr::tr("unexpected argument '%1' (usage: torchdeck code CLUSTER [--prune] [--json])").arg(arg));
            return UsageError;
        }
    }
    if (cluster.isEmpty()) {
        context.error(Tr::tr("which cluster? (torchdeck clusters lists them)"));
        return UsageError;
    }
    if (!context.open() || !context.connect(cluster))
        return Failure;
    if (prune) {
        // The agent asks the scheduler what still runs first: that decides what stays.
        const OperationOutcome pruned = context.wait(context.agent().pruneCodeSnapshots(cluster), codeTimeoutMs);
        if (!pruned.ok)
            return Failure;
        const agent::PruneCode::Reply result = pruned.reply<agent::PruneCode>().value_or(agent::PruneCode::Reply{});
        for (const QString &id : result.deleted)
            out << Tr::tr("deleted snapshot %1\n").arg(id);
        out << Tr::tr("deleted %1 snapshot(s) and %2 file(s) no other snapshot holds (%3); kept %4 snapshot(s) of "
                      "unfinished runs and those newer than an hour\n")
                   .arg(result.deleted.size())
                   .arg(result.objects)
                   .arg(size(result.bytes))
                   .arg(result.kept)
            << Qt::flush;
        return Ok;
    }
    const OperationOutcome listed = context.wait(context.agent().codeSnapshots(cluster), codeTimeoutMs);
    if (!listed.ok)
        return Failure;
    const auto runs = context.store().runs(cluster);
    if (!runs.ok()) {
        context.error(runs.error);
        return Failure;
    }
    const QMap<QString, SnapshotUse> uses = snapshotUses(runs.value);
    QJsonArray array;
    QStringList lines;
    for (const agent::CodeSnapshot &snapshot :
         listed.reply<agent::CodeSnapshots>().value_or(agent::CodeSnapshots::Reply{}).snapshots) {
        const QString &id = snapshot.id;
        const qint64 files = snapshot.files;
        const qint64 bytes = snapshot.bytes;
        const SnapshotUse use = uses.value(id);
        const QDateTime made = QDateTime::fromSecsSinceEpoch(snapshot.time);
        QJsonArray usedBy;
        QStringList named;
        for (const RunRecord *run : use.runs) {
            usedBy.append(QJsonObject{{QStringLiteral("run"), run->id}, {QStringLiteral("name"), run->name}});
            named.append(shortRunId(run->id) + u' ' + run->name);
        }
        array.append(QJsonObject{{QStringLiteral("id"), id},
                                 {QStringLiteral("files"), files},
                                 {QStringLiteral("bytes"), bytes},
                                 {QStringLiteral("time"), made.toSecsSinceEpoch()},
                                 {QStringLiteral("runs"), usedBy},
                                 {QStringLiteral("needed"), use.needed}});
        lines.append(Tr::tr("%1  %2 file(s)  %3  %4  %5")
                         .arg(id)
                         .arg(files)
                         .arg(size(bytes), made.toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                              named.isEmpty() ? Tr::tr("no run of this store")
                                              : named.join(QStringLiteral(", ")) +
                                                    (use.needed ? Tr::tr(" (unfinished)") : QString())));
    }
    if (json) {
        out << QJsonDocument(array).toJson(QJsonDocument::Compact) << '\n' << Qt::flush;
        return Ok;
    }
    if (lines.isEmpty())
        out << Tr::tr("no code snapshots on %1 (submit --code DIR makes one)\n").arg(cluster);
    for (const QString &line : std::as_const(lines))
        out << line << '\n';
    if (!lines.isEmpty())
        out << Tr::tr("torchdeck code %1 --prune deletes those no unfinished run uses\n").arg(cluster);
    out << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
