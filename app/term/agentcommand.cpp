#include "term/agentcommand.h"

#include "client/sessionoperation.h"
#include "core/agent/agentautostart.h"
#include "core/agent/agentcodec.h"
#include "core/agent/agentops.h"
#include "core/agent/agentpaths.h"
#include "core/appidentity.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>
#include <csignal>

namespace torchdeck::term {

namespace {
// Past the client's own deadline for an agent's hello: one that does not answer is named by it, with its pid.
constexpr int answerTimeoutMs = kAgentAnswerDeadlineMs + 5000;
constexpr int stopTimeoutMs = 10 * 60 * 1000; // its submissions in flight finish first
constexpr int processExitPollMs = 50;
constexpr int processExitTries = 200; // 10 s for its connections to close
constexpr int startTimeoutMs = 30000; // a new agent listens within 20 s (agentclient.cpp)

QString duration(qint64 seconds)
{
    if (seconds < 60)
        return Tr::tr("%1s").arg(seconds);
    if (seconds < 3600)
        return Tr::tr("%1m %2s").arg(seconds / 60).arg(seconds % 60);
    return Tr::tr("%1h %2m").arg(seconds / 3600).arg(seconds % 3600 / 60);
}

void printStatus(QTextStream &out, const AgentStatus &status)
{
    out << Tr::tr("agent %1, torchdeck %2 (%3), up %4\n")
               .arg(status.pid)
               .arg(status.version, status.executable,
                    duration(status.started.secsTo(QDateTime::currentDateTimeUtc())));
    out << Tr::tr("  runs of %1; socket %2\n").arg(status.dataDirectory, status.socketPath);
    out << Tr::tr("  stays while a run is unfinished or a front is attached, then %n idle minute(s)", nullptr,
                  status.idleExitMinutes)
        << '\n';
    if (status.submissionsInFlight > 0)
        out << Tr::tr("  %n submission(s) in flight", nullptr, status.submissionsInFlight) << '\n';
    out << Tr::tr("clusters:\n");
    if (status.clusters.isEmpty())
        out << Tr::tr("  none yet\n");
    for (const AgentClusterStatus &c : status.clusters)
        out << QStringLiteral("  %1  %2  %3  %4%5\n")
                   .arg(c.name, -20)
                   .arg(connectionStateName(c.state), -12)
                   .arg(Tr::tr("%n run(s) watched", nullptr, c.runsWatched), -16)
                   .arg(c.nextPollMs < 0 ? Tr::tr("polled every %1 s").arg(double(c.pollMs) / 1000.0)
                                         : Tr::tr("polled every %1 s, next in %2 s")
                                               .arg(double(c.pollMs) / 1000.0)
                                               .arg(qRound(c.nextPollMs / 100.0) / 10.0))
                   .arg(c.needsYou ? Tr::tr("  needs you (a password, code or host key)") : QString())
            << Tr::tr("    asked %1 command(s) (%2 scheduler queries), %3 SFTP request(s), %4 KiB received\n")
                   .arg(c.load.commands)
                   .arg(c.load.schedulerQueries)
                   .arg(c.load.sftpRequests)
                   .arg(c.load.bytesIn / 1024)
            << (c.load.following.isEmpty()
                    ? QString()
                    : Tr::tr("    files followed by: %1%2\n")
                          .arg(c.load.following,
                               c.load.followerProblem.isEmpty()
                                   ? QString()
                                   : Tr::tr(" (the follower stopped: %1)").arg(c.load.followerProblem)));
    out << Tr::tr("fronts:\n");
    for (const AgentClientStatus &c : status.clients)
        out << QStringLiteral("  %1 %2%3%4\n")
                   .arg(c.front)
                   .arg(c.pid)
                   .arg(c.interactive ? Tr::tr(" (can ask you)") : QString())
                   .arg(c.pid == QCoreApplication::applicationPid() ? Tr::tr(" (this command)") : QString());
}

// An agent whose process runs but did not answer (stopped, hung): not to be taken for none.
bool runsSilently(const AgentClient &agent)
{
    return agent.agentSilent() && agent.agentPid() > 0 && ::kill(pid_t(agent.agentPid()), 0) == 0;
}

int status(TermContext &context, AgentClient &agent, bool json)
{
    const OperationOutcome answered = waitFor(agent.status(), answerTimeoutMs);
    if (!answered.ok) {
        if (runsSilently(agent)) {
            context.error(answered.error);
            return Failure;
        }
        (json ? context.err() : context.out())
            << Tr::tr("no agent runs for %1 (%2)\n").arg(agentPaths().dataDirectory, answered.error) << Qt::flush;
        return Failure;
    }
    const std::optional<agent::Status::Reply> reply = answered.reply<agent::Status>();
    if (!reply) {
        context.error(Tr::tr("the agent's status is unreadable"));
        return Failure;
    }
    if (json) {
        // The wire's form, but a connection's state by its name (the wire's number means nothing to a script).
        QJsonObject object = agentStatusToCbor(reply->status).toJsonObject();
        QJsonArray clusters;
        for (qsizetype i = 0; i < reply->status.clusters.size(); ++i) {
            QJsonObject cluster = object.value(u"clusters").toArray().at(i).toObject();
            cluster[u"state"] = connectionStateName(reply->status.clusters.at(i).state);
            clusters.append(cluster);
        }
        object[u"clusters"] = clusters;
        context.out() << QJsonDocument(object).toJson(QJsonDocument::Compact) << '\n';
    } else {
        printStatus(context.out(), reply->status);
    }
    context.out() << Qt::flush;
    return Ok;
}

bool processEnded(qint64 pid, int tries)
{
    for (int i = 0; pid > 0 && ::kill(pid_t(pid), 0) == 0; ++i) {
        if (i == tries)
            return false;
        QThread::msleep(processExitPollMs);
    }
    return true;
}

// Asks the agent to stop and waits for its process to end: it closes the socket when its submissions are sent.
// The stop's answer; false: none came (no agent, or one that does not answer).
std::optional<bool> stopAgent(TermContext &context, AgentClient &agent, OperationOutcome *answered)
{
    *answered = waitFor(agent.stopAgent(), answerTimeoutMs);
    if (!answered->ok)
        return std::nullopt;
    const qint64 inFlight = answered->reply<agent::Stop>().value_or(agent::StopReply{}).submissions;
    if (inFlight > 0)
        context.out()
            << Tr::tr("agent %1 stops after %n submission(s) in flight", nullptr, int(inFlight)).arg(agent.agentPid())
            << '\n'
            << Qt::flush;
    const bool detached = waitUntil(
        [&](const std::function<void()> &done) {
            if (!agent.isAttached())
                return done();
            QObject::connect(&agent, &AgentClient::detached, &agent, done);
        },
        stopTimeoutMs);
    return detached && processEnded(agent.agentPid(), processExitTries);
}

int stop(TermContext &context, AgentClient &agent)
{
    OperationOutcome answered;
    const std::optional<bool> gone = stopAgent(context, agent, &answered);
    if (!gone) {
        if (runsSilently(agent)) {
            context.error(answered.error);
            return Failure;
        }
        context.out() << Tr::tr("no agent runs for %1\n").arg(agentPaths().dataDirectory) << Qt::flush;
        return Ok;
    }
    context.out() << (*gone ? Tr::tr("agent %1 stopped\n").arg(agent.agentPid())
                            : Tr::tr("agent %1 is still finishing its submissions\n").arg(agent.agentPid()))
                  << Qt::flush;
    return *gone ? Ok : Failure;
}

// An agent that answers stops as `agent stop` asks; one that does not (stopped, hung) is ended: a submission it
// had in flight is looked for by the next agent before it is sent again. Then a new agent starts.
int restart(TermContext &context, AgentClient &agent)
{
    OperationOutcome answered;
    const std::optional<bool> stopped = stopAgent(context, agent, &answered);
    const qint64 old = agent.agentPid();
    if (stopped && !*stopped) {
        context.error(Tr::tr("agent %1 is still finishing its submissions; not replaced").arg(old));
        return Failure;
    }
    if (!stopped && old > 0 && ::kill(pid_t(old), 0) == 0) { // silent, or still going: ended either way
        context.out() << Tr::tr("agent %1 does not answer (%2): ending it\n").arg(old).arg(answered.error) << Qt::flush;
        ::kill(pid_t(old), SIGCONT); // a stopped process hears SIGTERM once it runs again
        ::kill(pid_t(old), SIGTERM);
        if (!processEnded(old, processExitTries))
            ::kill(pid_t(old), SIGKILL);
        if (!processEnded(old, processExitTries)) {
            context.error(Tr::tr("agent %1 does not end").arg(old));
            return Failure;
        }
    }
    agent.detach();
    AgentClient::Options options;
    options.front = QStringLiteral("term");
    AgentClient fresh(options, &context.store());
    const OperationOutcome started = waitFor(fresh.status(), startTimeoutMs);
    if (!started.ok) {
        context.error(Tr::tr("no new agent: %1").arg(started.error));
        return Failure;
    }
    context.out() << (old > 0 ? Tr::tr("agent %1 replaced by agent %2\n").arg(old).arg(fresh.agentPid())
                              : Tr::tr("agent %1 started\n").arg(fresh.agentPid()))
                  << Qt::flush;
    return Ok;
}

int autostart(TermContext &context, bool on)
{
    const QString error = setAutostart(on, QCoreApplication::applicationFilePath(), dataDirectory());
    if (!error.isEmpty()) {
        context.error(error);
        return Failure;
    }
    if (on)
        context.out() << Tr::tr("the agent starts when you log in (%1)\n").arg(installedAutostart());
    else
        context.out() << Tr::tr("the agent no longer starts when you log in\n");
    context.out() << Qt::flush;
    return Ok;
}
} // namespace

int runAgentCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("agent"), out, err);
    QString action;
    bool json = false;
    int idleMinutes = -1;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--json") {
            json = true;
        } else if (arg == u"--idle-exit" && i + 1 < args.size()) {
            bool ok = false;
            idleMinutes = args.at(++i).toInt(&ok);
            if (!ok || idleMinutes < 0) {
                context.error(Tr::tr("--idle-exit wants minutes, 0 or more"));
                return UsageError;
            }
        } else if (action.isEmpty() &&
                   (arg == u"status" || arg == u"stop" || arg == u"restart" || arg == u"on" || arg == u"off")) {
            action = arg;
        } else {
            context.error(
                Tr::tr("unexpected argument '%1' (usage: torchdeck agent [status|stop|restart|on|off] [--json] "
                       "[--idle-exit MINUTES])")
                    .arg(arg));
            return UsageError;
        }
    }
    if (idleMinutes >= 0) {
        setAgentIdleExitMinutes(idleMinutes);
        out << Tr::tr("the agent exits after %n idle minute(s)", nullptr, idleMinutes) << '\n' << Qt::flush;
        if (action.isEmpty())
            return Ok;
    }
    if (action.isEmpty()) { // `torchdeck agent` alone runs the agent: main() sees to it before a front starts
        context.error(Tr::tr("which action? (usage: torchdeck agent [status|stop|restart|on|off] [--json] "
                             "[--idle-exit MINUTES]; alone, it runs the agent)"));
        return UsageError;
    }
    if (action == u"on" || action == u"off")
        return autostart(context, action == u"on");
    context.openStore();
    AgentClient &agent = context.agent(false);
    if (action == u"restart")
        return restart(context, agent);
    return action == u"status" ? status(context, agent, json) : stop(context, agent);
}

} // namespace torchdeck::term
