#include "term/cancelcommand.h"

#include "core/agent/agentops.h"
#include "term/runrefresh.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QMap>
#include <algorithm>

namespace torchdeck::term {

namespace {
constexpr int actionTimeoutMs = 60000;
} // namespace

int runCancelCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("cancel"), out, err);
    if (args.isEmpty() ||
        std::any_of(args.cbegin(), args.cend(), [](const QString &a) { return a.startsWith(u'-'); })) {
        context.error(Tr::tr("usage: torchdeck cancel RUN|SWEEP [RUN|SWEEP...]"));
        return UsageError;
    }
    if (!context.open())
        return Failure;
    int result = Ok;
    QList<RunRecord> runs;
    for (const QString &text : args) {
        const QList<RunRecord> named = context.findRuns(text, true); // a sweep: all its runs at once
        if (named.isEmpty())
            result = Failure;
        for (const RunRecord &run : named) {
            if (std::none_of(runs.cbegin(), runs.cend(), [&](const RunRecord &r) { return r.id == run.id; }))
                runs.append(run);
        }
    }
    // The state may have moved on since the store last heard: ask once for all of them, then cancel what still
    // runs with one request per cluster (the agent cancels every run's jobs in a command or a few, whatever their
    // number), then ask once more.
    refreshRuns(context, runs);
    QMap<QString, QList<RunRecord>> byCluster;
    for (const RunRecord &run : std::as_const(runs))
        byCluster[run.cluster].append(run);
    for (auto it = byCluster.cbegin(); it != byCluster.cend(); ++it) {
        if (!context.connect(it.key())) {
            result = Failure;
            continue;
        }
        QStringList runIds;
        for (const RunRecord &run : it.value())
            runIds.append(run.id);
        const OperationOutcome cancelled =
            context.wait(context.agent().cancel(it.key(), runIds), actionTimeoutMs,
                         runIds.size() == 1 ? Tr::tr("cancelling run %1").arg(shortRunId(runIds.first()))
                                            : Tr::tr("cancelling %1 runs on %2").arg(runIds.size()).arg(it.key()));
        if (!cancelled.ok) {
            result = Failure;
            continue;
        }
        const QStringList jobIds = cancelled.reply<agent::Cancel>().value_or(agent::RunActionReply{}).jobs;
        for (const RunRecord &run : it.value()) {
            QStringList ofRun;
            for (const JobRecord &job : context.store().jobs(run.id).value) {
                if (jobIds.contains(job.jobId))
                    ofRun.prepend(job.jobId);
            }
            if (ofRun.isEmpty())
                out << Tr::tr("run %1 has no unfinished job (%2)\n")
                           .arg(shortRunId(run.id), context.store().run(run.id).value.value_or(run).state);
            else
                out << Tr::tr("cancelled run %1 (job %2)\n").arg(shortRunId(run.id), ofRun.join(QStringLiteral(", ")));
        }
        out << Qt::flush;
    }
    refreshRuns(context, runs);
    return result;
}

} // namespace torchdeck::term
