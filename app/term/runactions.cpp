#include "term/runactions.h"

#include "core/jobs/runlayout.h"
#include "core/scheduler/jobstate.h"
#include "core/shellquote.h"
#include "remote/schedulerclient.h"
#include "term/runrefresh.h"
#include "term/runtable.h"
#include "term/terminalfront.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace torchdeck::term {

namespace {
constexpr int actionTimeoutMs = 60000;
} // namespace

UnfinishedJobs unfinishedJobs(TermContext &context, const RunRecord &run)
{
    QStringList ids;
    QString localState;
    for (const JobRecord &job : context.store().jobs(run.id).value) {
        if (!isFinal(jobStateFromName(job.state)))
            ids.append(job.jobId);
        localState = localStateDirectoryOf(job.stdoutPath);
    }
    return {ids, context.profiles().profile(run.cluster).commands(localState)};
}

int runCancelCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("cancel"), out, err);
    if (args.isEmpty() || std::any_of(args.cbegin(), args.cend(), [](const QString &a) { return a.startsWith(u'-'); })) {
        context.error(QStringLiteral("usage: torchdeck cancel RUN [RUN...]"));
        return UsageError;
    }
    if (!context.open())
        return Failure;
    int result = Ok;
    for (const QString &text : args) {
        const auto run = context.findRun(text);
        if (!run) {
            result = Failure;
            continue;
        }
        // The state may have moved on since the store last heard: ask first, cancel what still runs.
        refreshRuns(context, {*run});
        const UnfinishedJobs jobs = unfinishedJobs(context, *run);
        if (jobs.ids.isEmpty()) {
            out << "run " << shortRunId(run->id) << " has no unfinished job (" << context.store().run(run->id).value->state
                << ")\n";
            continue;
        }
        const auto connection = context.connect(run->cluster);
        if (!connection) {
            result = Failure;
            continue;
        }
        remote::SchedulerClient client(connection.get(), jobs.commands);
        QString problem;
        const bool finished = waitUntil(
            [&](const std::function<void()> &done) {
                QObject::connect(&client, &remote::SchedulerClient::failed, &client, [&, done](const QString &error) {
                    problem = error;
                    done();
                });
                QObject::connect(&client, &remote::SchedulerClient::actionDone, &client, [done] { done(); });
                client.act(SchedulerAction::Cancel, jobs.ids);
            },
            actionTimeoutMs);
        if (!finished || !problem.isEmpty()) {
            context.error(QStringLiteral("cancelling run %1: %2")
                              .arg(shortRunId(run->id), finished ? problem : QStringLiteral("no answer")));
            result = Failure;
            continue;
        }
        out << "cancelled run " << shortRunId(run->id) << " (job " << jobs.ids.join(QStringLiteral(", ")) << ")\n" << Qt::flush;
        refreshRuns(context, {*run});
    }
    return result;
}

namespace {
// The present checkpoint written at the end of the epoch with the lowest validation loss.
QString bestCheckpoint(TermContext &context, const QString &runId, const QList<CheckpointRecord> &checkpoints,
                       const QStringList &present)
{
    const auto series = context.store().runSeries(runId);
    if (!series.ok())
        return {};
    QHash<qint64, double> valLoss;
    for (const QPointF &point : series.value.series(SeriesKind::ValLoss).visiblePoints())
        valLoss.insert(qint64(point.x()), point.y());
    QString best;
    double lowest = std::numeric_limits<double>::infinity();
    for (const CheckpointRecord &c : checkpoints) {
        const auto it = valLoss.constFind(c.epoch);
        if (present.contains(c.path) && it != valLoss.cend() && (c.reason == u"epoch" || c.reason == u"final")
            && *it < lowest) {
            lowest = *it;
            best = c.path;
        }
    }
    return best;
}

int deleteCheckpoints(TermContext &context, const RunRecord &run, const QList<CheckpointRecord> &checkpoints,
                      const QStringList &present, const QString &latest, const QStringList &wanted)
{
    QStringList paths;
    for (const QString &what : wanted) {
        const QString found = checkpointNamed(checkpoints, what);
        if (found.isEmpty()) {
            context.error(QStringLiteral("run %1 has no checkpoint '%2'").arg(shortRunId(run.id), what));
            return Failure;
        }
        if (found == latest) {
            context.error(QStringLiteral("%1 is the latest checkpoint, the one a resume starts from: not deleting it")
                              .arg(found.section(u'/', -1)));
            return Failure;
        }
        paths.append(found);
    }
    const auto connection = context.connect(run.cluster);
    if (!connection)
        return Failure;
    QString command = QStringLiteral("rm -f --");
    for (const QString &path : std::as_const(paths))
        command += u' ' + shellQuote(path) + u' ' + shellQuote(path + QStringLiteral(".json"));
    const remote::ExecResult removed = connection->runAndWait(command, actionTimeoutMs);
    if (!removed.ok()) {
        context.error(QStringLiteral("deleting on %1 failed: %2")
                          .arg(run.cluster, removed.error.isEmpty() ? QString::fromUtf8(removed.err.trimmed()) : removed.error));
        return Failure;
    }
    for (const QString &path : std::as_const(paths)) {
        context.store().removeCheckpoint(run.id, path);
        context.out() << "deleted " << path << (present.contains(path) ? "" : " (was already gone)") << '\n';
    }
    context.out() << Qt::flush;
    return Ok;
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
            context.error(QStringLiteral("unexpected argument '%1' (usage: torchdeck checkpoints RUN [--json] "
                                         "[--delete STEP|FILE]...)")
                              .arg(arg));
            return UsageError;
        }
    }
    const auto run = context.openRun(runText);
    if (!run)
        return Failure;
    if (isUnfinishedRun(*run))
        refreshRuns(context, {*run});
    const auto checkpoints = context.store().checkpoints(run->id);
    if (!checkpoints.ok()) {
        context.error(checkpoints.error);
        return Failure;
    }
    // Which files are still there: the trainer keeps only the last K.
    QStringList present;
    if (!checkpoints.value.isEmpty()) {
        const auto connection = context.connect(run->cluster);
        if (!connection)
            return Failure;
        QString command = QStringLiteral("for f in");
        for (const CheckpointRecord &checkpoint : checkpoints.value)
            command += u' ' + shellQuote(checkpoint.path);
        command += QStringLiteral("; do if test -f \"$f\"; then printf '%s\\n' \"$f\"; fi; done");
        const remote::ExecResult listed = connection->runAndWait(command, actionTimeoutMs);
        if (!listed.ok()) {
            context.error(QStringLiteral("cannot list the checkpoints on %1: %2").arg(run->cluster, listed.error));
            return Failure;
        }
        present = QString::fromUtf8(listed.out).split(u'\n', Qt::SkipEmptyParts);
    }
    QString latest;
    for (const CheckpointRecord &checkpoint : checkpoints.value) {
        if (present.contains(checkpoint.path) && !isSupersededCheckpoint(checkpoint.path))
            latest = checkpoint.path;
    }
    if (!toDelete.isEmpty())
        return deleteCheckpoints(context, *run, checkpoints.value, present, latest, toDelete);
    const QString best = bestCheckpoint(context, run->id, checkpoints.value, present);
    if (json) {
        QJsonArray array;
        for (const CheckpointRecord &c : checkpoints.value)
            array.append(QJsonObject{{QStringLiteral("path"), c.path},
                                     {QStringLiteral("attempt"), c.attempt},
                                     {QStringLiteral("epoch"), c.epoch},
                                     {QStringLiteral("step"), c.step},
                                     {QStringLiteral("bytes"), c.bytes},
                                     {QStringLiteral("time"), std::isfinite(c.time) ? QJsonValue(c.time) : QJsonValue()},
                                     {QStringLiteral("reason"), c.reason},
                                     {QStringLiteral("present"), present.contains(c.path)},
                                     {QStringLiteral("latest"), c.path == latest},
                                     {QStringLiteral("superseded"), isSupersededCheckpoint(c.path)},
                                     {QStringLiteral("best"), c.path == best}});
        out << QJsonDocument(array).toJson(QJsonDocument::Compact) << '\n' << Qt::flush;
        return Ok;
    }
    if (checkpoints.value.isEmpty()) {
        out << "run " << shortRunId(run->id) << " has no checkpoints yet\n" << Qt::flush;
        return Ok;
    }
    out << "STEP     EPOCH  SIZE       WRITTEN              REASON  FILE\n";
    for (const CheckpointRecord &c : checkpoints.value) {
        const QString when = std::isfinite(c.time)
                               ? QDateTime::fromMSecsSinceEpoch(qint64(c.time * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                               : QStringLiteral("-");
        const QString size = c.bytes >= 0 ? QString::number(double(c.bytes) / 1048576.0, 'f', 2) + QStringLiteral(" MB")
                                          : QStringLiteral("-");
        QStringList marks;
        if (c.path == latest)
            marks.append(QStringLiteral("latest"));
        if (c.path == best)
            marks.append(QStringLiteral("best val loss"));
        if (!present.contains(c.path))
            marks.append(QStringLiteral("deleted"));
        else if (isSupersededCheckpoint(c.path))
            marks.append(QStringLiteral("set aside by a resume from an older one: ") + c.path.section(u'/', -2, -2));
        const QString mark = marks.isEmpty() ? QString() : QStringLiteral("  (%1)").arg(marks.join(QStringLiteral(", ")));
        out << QStringLiteral("%1  %2  %3  %4  %5  %6%7\n")
                   .arg(c.step, -7)
                   .arg(c.epoch, 5)
                   .arg(size, -9)
                   .arg(when, -19)
                   .arg(c.reason, -6)
                   .arg(c.path.section(u'/', -1), mark);
    }
    out << "resume with: torchdeck resume " << shortRunId(run->id) << " [--from STEP|FILE] [--epochs N]\n" << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
