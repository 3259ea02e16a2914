#include "term/stackcommand.h"

#include "core/agent/agentops.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

namespace torchdeck::term {

namespace {
constexpr int dumpTimeoutMs = 180000;
}

int runStackCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("stack"), out, err);
    if (args.size() != 1 || args.constFirst().startsWith(u'-')) {
        context.error(Tr::tr("usage: torchdeck stack RUN"));
        return UsageError;
    }
    const auto run = context.openRun(args.constFirst());
    if (!run)
        return Failure;
    if (!context.connect(run->cluster))
        return Failure;
    const OperationOutcome dumped =
        context.wait(context.agent().stackDump(run->cluster, run->id), dumpTimeoutMs, run->cluster);
    if (!dumped.ok)
        return Failure;
    const agent::StackDump::Reply result = dumped.reply<agent::StackDump>().value_or(agent::StackDump::Reply{});
    out << result.dump << Qt::flush;
    if (!result.path.isEmpty())
        err << Tr::tr("torchdeck: kept in %1\n").arg(result.path) << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
