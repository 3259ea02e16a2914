#include "term/codecommand.h"

#include "core/code/coderemote.h"
#include "core/jobs/runlayout.h"
#include "remote/connection.h"
#include "session/clustersession.h"
#include "term/runrefresh.h"
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
    QStringList runs;    // short ids and names
    bool needed = false; // by a run that has not ended
};

QMap<QString, SnapshotUse> snapshotUses(const QList<RunRecord> &runs)
{
    QMap<QString, SnapshotUse> uses;
    for (const RunRecord &run : runs) {
        const JobSpec::FromJson spec = JobSpec::fromJson(QJsonDocument::fromJson(run.specJson.toUtf8()).object());
        if (!spec.ok() || spec.spec.codeSnapshot.isEmpty())
            continue;
        SnapshotUse &use = uses[spec.spec.codeSnapshot];
        use.runs.append(shortRunId(run.id) + u' ' + run.name);
        use.needed = use.needed || isUnfinishedRun(run);
    }
    return uses;
}

QString why(const remote::ExecResult &result)
{
    return result.error.isEmpty() ? QString::fromUtf8(result.err.trimmed()) : result.error;
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
    if (!context.open())
        return Failure;
    auto runs = context.store().runs(cluster);
    if (!runs.ok()) {
        context.error(runs.error);
        return Failure;
    }
    if (prune) {
        // What is still running decides what stays: states as the scheduler says them now.
        QList<RunRecord> unfinished;
        for (const RunRecord &run : std::as_const(runs.value)) {
            if (isUnfinishedRun(run))
                unfinished.append(run);
        }
        if (!unfinished.isEmpty() && !refreshRuns(context, unfinished))
            return Failure;
        runs = context.store().runs(cluster);
        if (!runs.ok()) {
            context.error(runs.error);
            return Failure;
        }
    }
    ClusterSession *session = context.connect(cluster);
    if (!session)
        return Failure;
    const ClusterProfile profile = context.profiles().profile(cluster);
    const remote::ExecResult work =
        runAndWait(*session->connection(), workDirectoryCommand(profile.workDirectory), codeTimeoutMs);
    if (!work.ok()) {
        context.error(
            Tr::tr("cannot use the work directory %1 on %2: %3").arg(profile.workDirectory, cluster, why(work)));
        return Failure;
    }
    const CodeStore store{QString::fromUtf8(work.out.trimmed()) + QStringLiteral("/code")};
    const QMap<QString, SnapshotUse> uses = snapshotUses(runs.value);
    if (prune) {
        QStringList keep;
        for (auto it = uses.cbegin(); it != uses.cend(); ++it) {
            if (it->needed)
                keep.append(it.key());
        }
        const remote::ExecResult pruned = runAndWait(*session->connection(), store.pruneCommand(keep), codeTimeoutMs);
        if (!pruned.ok()) {
            context.error(Tr::tr("pruning the code snapshots on %1 failed: %2").arg(cluster, why(pruned)));
            return Failure;
        }
        int manifests = 0;
        for (const QByteArray &line : pruned.out.split('\n')) {
            const QList<QByteArray> words = line.split(' ');
            if (words.size() == 3 && words.at(1) == "manifest") {
                ++manifests;
                out << Tr::tr("deleted snapshot %1\n").arg(QString::fromLatin1(words.at(2)));
            } else if (words.size() == 4 && words.at(1) == "objects") {
                out << Tr::tr(
                           "deleted %1 snapshot(s) and %2 file(s) no other snapshot holds (%3); kept %4 snapshot(s) of "
                           "unfinished runs and those newer than an hour\n")
                           .arg(manifests)
                           .arg(words.at(2).toInt())
                           .arg(size(words.at(3).toLongLong()))
                           .arg(keep.size());
            }
        }
        out << Qt::flush;
        return Ok;
    }
    const remote::ExecResult listed = runAndWait(*session->connection(), store.listCommand(), codeTimeoutMs);
    if (!listed.ok()) {
        context.error(Tr::tr("cannot list the code snapshots on %1: %2").arg(cluster, why(listed)));
        return Failure;
    }
    QJsonArray array;
    QStringList lines;
    for (const QByteArray &line : listed.out.split('\n')) {
        const QList<QByteArray> words = line.split(' ');
        if (words.size() != 5 || words.at(0) != "manifest")
            continue;
        const QString id = QString::fromLatin1(words.at(1));
        const SnapshotUse use = uses.value(id);
        const QDateTime made = QDateTime::fromSecsSinceEpoch(words.at(4).toLongLong());
        array.append(QJsonObject{{QStringLiteral("id"), id},
                                 {QStringLiteral("files"), words.at(2).toInt()},
                                 {QStringLiteral("bytes"), words.at(3).toLongLong()},
                                 {QStringLiteral("time"), made.toSecsSinceEpoch()},
                                 {QStringLiteral("runs"), QJsonArray::fromStringList(use.runs)},
                                 {QStringLiteral("needed"), use.needed}});
        lines.append(Tr::tr("%1  %2 file(s)  %3  %4  %5")
                         .arg(id)
                         .arg(words.at(2).toInt())
                         .arg(size(words.at(3).toLongLong()), made.toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                              use.runs.isEmpty() ? Tr::tr("no run of this store")
                                                 : use.runs.join(QStringLiteral(", ")) +
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
