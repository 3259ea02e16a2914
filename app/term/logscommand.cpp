#include "term/logscommand.h"

#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/jobs/jobspec.h"
#include "core/metrics/logexplain.h"
#include "core/metrics/logmetrics.h"
#include "core/metrics/metricscsv.h"
#include "core/scheduler/jobstate.h"
#include "core/store/keptlogs.h"
#include "term/runrefresh.h"
#include "term/runtable.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QPointer>
#include <QTimer>
#include <algorithm>
#include <cmath>

namespace torchdeck::term {

namespace {
constexpr int readTimeoutMs = 120000;
constexpr int followPollMs = 2000;

struct LogArgs {
    QString run;
    bool follow = false;
    bool explain = false;
    int attempt = -1; // all
};

// The whole file through the agent, or nothing with the reason said.
// `quiet`: a failure is not said (the caller says what it means).
std::optional<QByteArray> readFile(TermContext &context, const QString &cluster, const QString &path,
                                   bool quiet = false)
{
    QByteArray bytes;
    const auto collect = [&bytes](const QString &name, const QCborMap &args) {
        if (const auto data = eventOf<agent::DataEvent>(name, args))
            bytes += data->bytes;
    };
    const OperationOutcome read =
        quiet ? waitFor(context.agent().readFile(cluster, path), readTimeoutMs, collect)
              : context.wait(context.agent().readFile(cluster, path), readTimeoutMs, QString(), collect);
    return read.ok ? std::optional<QByteArray>(bytes) : std::nullopt;
}

// Per line that a rule read: which one, and what it gave (the run's and its cluster's patterns first).
void explainLogText(TermContext &context, const QByteArray &log, const QList<LogPattern> &patterns)
{
    for (const ExplainedLine &line : explainLog(log, patterns))
        context.out() << Tr::tr("line %1: %2\n  %3\n").arg(line.number).arg(explanationText(line), line.text.left(160));
    context.out() << Qt::flush;
}

// Where only the end of an ended job's logs was kept (its cluster out of reach), a note on stderr says how to get the
// whole once it is back; `numbered`: that an explanation's line numbers count from the kept end's first line.
void noteKeptEnd(TermContext &context, const KeptLog &kept, const RunRecord &run, const JobRecord &job, bool numbered)
{
    if (!kept.truncated())
        return;
    if (numbered && kept.outSize >= 0)
        context.err() << Tr::tr("(line numbers count from the first line kept, not from the log's start)\n");
    const QLocale c = QLocale::c();
    const QString where = clusterOfJob(run, job);
    const QString on = where == run.cluster ? QString() : QStringLiteral(" --on ") + where;
    for (const auto &[size, path] : {std::pair{kept.outSize, job.stdoutPath}, std::pair{kept.errSize, job.stderrPath}})
        if (size >= 0)
            context.err() << Tr::tr("(the last %1 of %2, kept on this machine; all of it: torchdeck pull %3 %4%5)\n")
                                 .arg(c.formattedDataSize(kKeptLogBytes), c.formattedDataSize(size), shortRunId(run.id),
                                      path.section(u'/', -1), on)
                          << Qt::flush;
}

// An ended job's kept logs, with the note where only their end was kept.
void printKept(TermContext &context, const KeptLog &kept, const RunRecord &run, const JobRecord &job)
{
    context.out() << QString::fromUtf8(kept.out) << QString::fromUtf8(kept.err) << Qt::flush;
    noteKeptEnd(context, kept, run, job, false);
}

bool printFile(TermContext &context, const QString &cluster, const QString &path)
{
    const std::optional<QByteArray> text = readFile(context, cluster, path);
    if (!text)
        return false;
    context.out() << QString::fromUtf8(*text) << Qt::flush;
    return true;
}

// Follows the attempt's log until its job has ended (the agent's passes say when); returns its final state.
QString follow(TermContext &context, const QString &cluster, const JobRecord &job)
{
    AgentClient &agent = context.agent();
    agent.setPollInterval(followPollMs);
    const QPointer<SessionOperation> tail = agent.followFile(cluster, job.stdoutPath, 0);
    QObject watcher;
    onEvent<agent::DataEvent>(tail, &watcher, [&context](const agent::DataEvent &data) {
        context.out() << QString::fromUtf8(data.bytes) << Qt::flush;
    });
    onEvent<agent::ResetEvent>(tail, &watcher, [&context](const agent::ResetEvent &reset) {
        context.err() << Tr::tr("-- the log was replaced (%1); reading it again\n").arg(reset.reason) << Qt::flush;
    });
    QString state = job.state;
    const auto stateOfJob = [&context, &job] {
        for (const JobRecord &stored : context.store().jobs(job.runId).value) {
            if (stored.attempt == job.attempt)
                return stored.state;
        }
        return job.state;
    };
    waitUntil(
        [&](const std::function<void()> &done) {
            QObject::connect(tail, &SessionOperation::failed, &watcher, [&, done](const QString &error) {
                context.error(error);
                done();
            });
            QObject::connect(&agent, &AgentClient::refreshed, &watcher, [&, done](const QString &passCluster) {
                if (passCluster != cluster)
                    return;
                state = stateOfJob();
                if (!isFinal(jobStateFromName(state)))
                    return;
                // The scheduler may say "ended" before the last lines are read: one more tail poll.
                QObject::disconnect(&agent, nullptr, &watcher, nullptr);
                QTimer::singleShot(1500, &watcher, done);
            });
            QObject::connect(&agent, &AgentClient::detached, &watcher, [&, done](const QString &reason) {
                context.error(reason);
                done();
            });
            agent.refresh(cluster, {job.runId}, 0);
        },
        0);
    if (tail && !tail->isDone())
        tail->stop();
    return state;
}
} // namespace

int runLogsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("logs"), out, err);
    LogArgs parsed;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"-f" || arg == u"--follow") {
            parsed.follow = true;
        } else if (arg == u"--explain") {
            parsed.explain = true;
        } else if (arg == u"--attempt" && i + 1 < args.size()) {
            bool ok = false;
            parsed.attempt = args.at(++i).toInt(&ok);
            if (!ok || parsed.attempt < 0) {
                context.error(Tr::tr("--attempt wants 0, 1, ..."));
                return UsageError;
            }
        } else if (!arg.startsWith(u'-') && parsed.run.isEmpty()) {
            parsed.run = arg;
        } else {
            context.error(
                Tr::tr("unexpected argument '%1' (usage: torchdeck logs RUN [-f] [--attempt N] [--explain])").arg(arg));
            return UsageError;
        }
    }
    const auto run = context.openRun(parsed.run);
    if (!run)
        return Failure;
    const auto jobs = context.store().jobs(run->id);
    if (!jobs.ok() || jobs.value.isEmpty()) {
        context.error(Tr::tr("run %1 has no jobs").arg(shortRunId(run->id)));
        return Failure;
    }
    if (parsed.attempt >= 0 && std::none_of(jobs.value.cbegin(), jobs.value.cend(), [&parsed](const JobRecord &job) {
            return job.attempt == parsed.attempt;
        })) {
        context.error(Tr::tr("run %1 has no attempt %2 (its attempts: %3 to %4)")
                          .arg(shortRunId(run->id))
                          .arg(parsed.attempt)
                          .arg(jobs.value.constFirst().attempt)
                          .arg(jobs.value.constLast().attempt));
        return Failure;
    }
    // Each attempt's log is on its own cluster (a run continued elsewhere has attempts on two).
    QStringList connected;
    const auto reach = [&context, &connected](const QString &cluster) {
        if (connected.contains(cluster))
            return true;
        if (!context.connect(cluster))
            return false;
        connected.append(cluster);
        return true;
    };
    // The job that speaks for the run: the first that has not ended (attempts of a chain wait behind it).
    auto current =
        std::find_if(jobs.value.cbegin(), jobs.value.cend(), [](const JobRecord &job) { return !job.hasEnded(); });
    const JobRecord &latest = current != jobs.value.cend() ? *current : jobs.value.constLast();
    const bool following = parsed.follow && !parsed.explain &&
                           (parsed.attempt < 0 || parsed.attempt == latest.attempt) && !latest.hasEnded();
    for (const JobRecord &job : jobs.value) {
        if ((parsed.attempt >= 0 && job.attempt != parsed.attempt) || (following && job.attempt >= latest.attempt))
            continue;
        const QString where = clusterOfJob(*run, job);
        // An ended job's logs, kept here by the agent when it ended: no cluster needed, and they outlive its copy. Only
        // the end of a long one was kept: the cluster's whole file, while it can be read.
        const std::optional<KeptLog> kept =
            job.hasEnded() ? readKeptLog(context.store().path(), run->id, job.attempt) : std::nullopt;
        bool fromCluster = !kept || kept->truncated();
        if (fromCluster && !reach(where)) {
            if (!kept)
                return Failure;
            fromCluster = false;
        }
        if (jobs.value.size() > 1)
            out << Tr::tr("== attempt %1, job %2 (%3) ==\n").arg(job.attempt).arg(job.jobId, job.state);
        if (parsed.explain) {
            if (!context.loadProfiles())
                return Failure;
            const QStringList own = run->spec().spec.logPatterns + context.profiles().profile(where).logPatterns;
            std::optional<QByteArray> log = fromCluster ? readFile(context, where, job.stdoutPath) : std::nullopt;
            if (!log && !kept)
                return Failure;
            explainLogText(context, log ? *log : kept->out, jobLogPatterns(own));
            if (!log)
                noteKeptEnd(context, *kept, *run, job, true);
            continue;
        }
        if (!fromCluster) {
            printKept(context, *kept, *run, job);
            continue;
        }
        if (job.jobState() == JobState::Pending) { // requeued in itself, its log holds its runs before; else none yet
            if (const auto before = readFile(context, where, job.stdoutPath, true))
                out << QString::fromUtf8(*before);
            else
                out << Tr::tr("job %1 is pending: its log begins when it runs\n").arg(job.jobId);
            continue;
        }
        if (!printFile(context, where, job.stdoutPath)) {
            if (!kept)
                return Failure;
            printKept(context, *kept, *run, job); // the end kept here, said so
            continue;
        }
        if (!job.stderrPath.isEmpty() && !printFile(context, where, job.stderrPath)) {
            if (!kept)
                return Failure;
            out << QString::fromUtf8(kept->err) << Qt::flush;
        }
    }
    if (!following)
        return Ok;
    if (jobs.value.size() > 1)
        out << Tr::tr("== attempt %1, job %2 (following) ==\n").arg(latest.attempt).arg(latest.jobId) << Qt::flush;
    if (!reach(clusterOfJob(*run, latest)))
        return Failure;
    const QString state = follow(context, clusterOfJob(*run, latest), latest);
    err << Tr::tr("-- job %1 %2\n").arg(latest.jobId, state) << Qt::flush;
    return state == jobStateName(JobState::Completed) ? Ok : Failure;
}

namespace {
QJsonValue jsonNumber(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}
} // namespace

int runMetricsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("metrics"), out, err);
    QString runText;
    QString format = QStringLiteral("table");
    bool offline = false;
    for (const QString &arg : args) {
        if (arg == u"--csv" || arg == u"--json")
            format = arg.mid(2);
        else if (arg == u"--offline")
            offline = true;
        else if (!arg.startsWith(u'-') && runText.isEmpty())
            runText = arg;
        else {
            context.error(
                Tr::tr("unexpected argument '%1' (usage: torchdeck metrics RUN [--csv|--json] [--offline])").arg(arg));
            return UsageError;
        }
    }
    const auto run = context.openRun(runText);
    if (!run)
        return Failure;
    bool reached = true;
    if (!offline && !run->hasEnded())
        reached = refreshRuns(context, {*run});
    const auto events = context.store().metrics(run->id);
    if (!events.ok()) {
        context.error(events.error);
        return Failure;
    }
    // Each attempt's cluster: one run continued elsewhere (`resume --on`) is one curve over both.
    const QList<JobRecord> jobs = context.store().jobs(run->id).value;
    const bool labelled = spansClusters(*run, jobs);
    const auto clusterOf = [&run, &jobs](int attempt) {
        for (const JobRecord &job : jobs)
            if (job.attempt == attempt)
                return clusterOfJob(*run, job);
        return run->cluster;
    };
    // An epoch printed over two lines: one row.
    QList<bool> setAside; // by row: a later attempt's branch replaced it (resume --from an older checkpoint)
    const QList<StoredMetricEvent> rows = joinedEpochRows(events.value, supersededEvents(events.value), &setAside);
    if (format == u"csv") {
        out << metricsCsv(events.value);
    } else if (format == u"json") {
        QJsonArray array;
        for (qsizetype row = 0; row < rows.size(); ++row) {
            const StoredMetricEvent &stored = rows.at(row);
            const MetricEvent &e = stored.event;
            if (e.kind != MetricEventKind::Step && e.kind != MetricEventKind::Epoch)
                continue;
            QJsonObject extras;
            for (const NamedValue &value : e.extras)
                extras.insert(value.name, jsonNumber(value.value));
            array.append(QJsonObject{{QStringLiteral("attempt"), stored.attempt},
                                     {QStringLiteral("cluster"), clusterOf(stored.attempt)},
                                     {QStringLiteral("source"), metricSourceName(e.source)},
                                     {QStringLiteral("extras"), extras},
                                     {QStringLiteral("event"), metricEventName(e.kind)},
                                     {QStringLiteral("time"), jsonNumber(e.time)},
                                     {QStringLiteral("epoch"), e.epoch},
                                     {QStringLiteral("step"), e.step},
                                     {QStringLiteral("loss"), jsonNumber(e.loss)},
                                     {QStringLiteral("lr"), jsonNumber(e.lr)},
                                     {QStringLiteral("samples_per_s"), jsonNumber(e.samplesPerSecond)},
                                     {QStringLiteral("val_loss"), jsonNumber(e.valLoss)},
                                     {QStringLiteral("val_accuracy"), jsonNumber(e.valAccuracy)},
                                     {QStringLiteral("seconds"), jsonNumber(e.seconds)},
                                     {QStringLiteral("discarded"), setAside.value(row)}});
        }
        out << QJsonDocument(array).toJson(QJsonDocument::Compact) << '\n';
    } else {
        out << Tr::tr("EPOCH  TRAIN LOSS  VAL LOSS  VAL ACC  SECONDS  SAMPLES/S  ATTEMPT%1\n")
                   .arg(labelled ? Tr::tr("  CLUSTER") : QString());
        for (qsizetype row = 0; row < rows.size(); ++row) {
            const StoredMetricEvent &stored = rows.at(row);
            const MetricEvent &e = stored.event;
            if (e.kind != MetricEventKind::Epoch)
                continue;
            out << QStringLiteral("%1  %2  %3  %4  %5  %6  %7")
                       .arg(e.epoch, 5)
                       .arg(formatLoss(e.loss), 10)
                       .arg(formatLoss(e.valLoss), 8)
                       .arg(formatLoss(e.valAccuracy), 7)
                       .arg(std::isfinite(e.seconds) ? QString::number(e.seconds, 'f', 1) : QStringLiteral("-"), 7)
                       .arg(std::isfinite(e.samplesPerSecond) ? QString::number(e.samplesPerSecond, 'f', 0)
                                                              : QStringLiteral("-"),
                            9)
                       .arg(stored.attempt, 7)
                << (labelled ? QStringLiteral("  ") + clusterOf(stored.attempt) : QString())
                << (setAside.value(row) ? Tr::tr("  (set aside by a resume from an older checkpoint)") : QString())
                << u'\n';
        }
    }
    out << Qt::flush;
    return reached ? Ok : Failure;
}

} // namespace torchdeck::term
