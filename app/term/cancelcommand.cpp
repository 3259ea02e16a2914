#include "term/cancelcommand.h"

#include "core/agent/cborfields.h"
#include "term/runrefresh.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

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
        context.error(Tr::tr("usage: torchdeck cancel RUN [RUN...]"));
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
        if (!context.connect(run->cluster)) {
            result = Failure;
            continue;
        }
        const OperationOutcome cancelled =
            context.wait(context.agent().cancel(run->cluster, {run->id}), actionTimeoutMs,
                         Tr::tr("cancelling run %1").arg(shortRunId(run->id)));
        if (!cancelled.ok) {
            result = Failure;
            continue;
        }
        const QStringList jobIds = CborFields(cancelled.map()).texts(QStringLiteral("jobs"));
        if (jobIds.isEmpty()) {
            out << Tr::tr("run %1 has no unfinished job (%2)\n")
                       .arg(shortRunId(run->id), context.store().run(run->id).value.value_or(*run).state);
            continue;
        }
        out << Tr::tr("cancelled run %1 (job %2)\n").arg(shortRunId(run->id), jobIds.join(QStringLiteral(", ")))
            << Qt::flush;
        refreshRuns(context, {*run});
    }
    return result;
}

} // namespace torchdeck::term
