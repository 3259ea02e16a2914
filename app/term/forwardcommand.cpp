#include "term/forwardcommand.h"

#include "core/agent/agentops.h"
#include "term/forwardargs.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck::term {

namespace {
constexpr int forwardTimeoutMs = 120000; // a scheduler query and a first connection to the node

QList<PortForward> forwardsOf(const OperationOutcome &outcome) // of `forwards` and `forward_stop` alike
{
    return outcome.reply<agent::Forwards>().value_or(agent::ForwardsReply{}).forwards;
}

QJsonObject forwardJson(const PortForward &forward)
{
    return QJsonObject{{QStringLiteral("cluster"), forward.cluster},
                       {QStringLiteral("run"), forward.runId},
                       {QStringLiteral("node"), forward.node},
                       {QStringLiteral("address"), forward.address},
                       {QStringLiteral("remote_port"), forward.remotePort},
                       {QStringLiteral("local_port"), forward.localPort},
                       {QStringLiteral("url"), forward.url()},
                       {QStringLiteral("connections"), forward.connections},
                       {QStringLiteral("served"), forward.served},
                       {QStringLiteral("last_error"), forward.lastError}};
}

QString forwardLine(const PortForward &forward)
{
    return Tr::tr("localhost:%1 -> %2:%3 (%4)  run %5 on %6  %7 open, %8 served%9")
        .arg(forward.localPort)
        .arg(forward.node)
        .arg(forward.remotePort)
        .arg(forward.address, shortRunId(forward.runId), forward.cluster)
        .arg(forward.connections)
        .arg(forward.served)
        .arg(forward.lastError.isEmpty() ? QString() : Tr::tr("  last error: %1").arg(forward.lastError));
}

// The agent's forwards (those stopped, for --stop); none when no agent runs: forwards live only in one, so
// none is started to ask.
std::optional<QList<PortForward>> askForwards(TermContext &context, bool stop, int localPort, const QString &runId)
{
    AgentClient &agent = context.agent(false);
    const OperationOutcome answered =
        waitFor(stop ? agent.stopForwards(localPort, runId) : agent.forwards(), forwardTimeoutMs);
    if (answered.ok)
        return forwardsOf(answered);
    if (agent.agentPid() == 0)
        return QList<PortForward>{};
    context.error(answered.error);
    return std::nullopt;
}

int printForwards(TermContext &context, const QList<PortForward> &forwards, bool json, const QString &none)
{
    if (json) {
        QJsonArray array;
        for (const PortForward &forward : forwards)
            array.append(forwardJson(forward));
        context.out() << QJsonDocument(array).toJson(QJsonDocument::Indented) << Qt::flush;
        return Ok;
    }
    if (forwards.isEmpty())
        context.out() << none << u'\n';
    for (const PortForward &forward : forwards)
        context.out() << forwardLine(forward) << u'\n';
    context.out() << Qt::flush;
    return Ok;
}

} // namespace

int runForwardCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("forward"), out, err);
    const ForwardArgs parsed = parseForwardArgs(args);
    if (!parsed.error.isEmpty()) {
        context.error(parsed.error);
        return UsageError;
    }
    if (!context.open())
        return Failure;
    if (parsed.action == ForwardArgs::Action::List) {
        const std::optional<QList<PortForward>> listed = askForwards(context, false, 0, {});
        return listed ? printForwards(context, *listed, parsed.json, Tr::tr("no forwards")) : Failure;
    }
    if (parsed.action == ForwardArgs::Action::Stop) {
        QString runId;
        if (!parsed.run.isEmpty()) {
            const auto run = context.findRun(parsed.run);
            if (!run)
                return Failure;
            runId = run->id;
        }
        const std::optional<QList<PortForward>> stopped = askForwards(context, true, parsed.localPort, runId);
        if (!stopped)
            return Failure;
        const QList<PortForward> &forwards = *stopped;
        if (forwards.isEmpty()) {
            context.error(Tr::tr("no forward of %1")
                              .arg(parsed.run.isEmpty() ? Tr::tr("localhost:%1").arg(parsed.localPort)
                                                        : Tr::tr("run %1").arg(parsed.run)));
            return Failure;
        }
        if (parsed.json)
            return printForwards(context, forwards, true, {});
        for (const PortForward &forward : forwards)
            out << Tr::tr("stopped forwarding localhost:%1 to %2:%3 for run %4\n")
                       .arg(forward.localPort)
                       .arg(forward.node)
                       .arg(forward.remotePort)
                       .arg(shortRunId(forward.runId));
        out << Qt::flush;
        return Ok;
    }
    const auto run = context.findRun(parsed.run);
    if (!run || !context.connect(run->cluster))
        return Failure;
    const OperationOutcome started = context.wait(
        context.agent().startForward(run->cluster, run->id, parsed.remotePort, parsed.localPort), forwardTimeoutMs);
    if (!started.ok)
        return Failure;
    const std::optional<agent::ForwardReply> reply = started.reply<agent::Forward>();
    if (!reply) {
        context.error(Tr::tr("the agent's answer is unreadable"));
        return Failure;
    }
    const PortForward *forward = &reply->forward;
    if (parsed.json)
        out << QJsonDocument(forwardJson(*forward)).toJson(QJsonDocument::Indented);
    else
        out << Tr::tr("forwarding localhost:%1 to %2:%3 for run %4 (%5; stop with: torchdeck forward --stop %1)\n")
                   .arg(forward->localPort)
                   .arg(forward->node)
                   .arg(forward->remotePort)
                   .arg(shortRunId(forward->runId), forward->url());
    out << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
