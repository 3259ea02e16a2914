#include "term/agentcommand.h"

#include "core/agent/agentautostart.h"
#include "core/agent/agentcodec.h"
#include "core/agent/agentpaths.h"
#include "core/appidentity.h"
#include "session/agentmain.h"
#include "session/sessionoperation.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QThread>
#include <csignal>

namespace torchdeck::term {

namespace {
constexpr int answerTimeoutMs = 10000;
constexpr int stopTimeoutMs = 10 * 60 * 1000; // its submissions in flight finish first
constexpr int processExitPollMs = 50;
constexpr int processExitTries = 200; // 10 s for its connections to close

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
                   .arg(c.load.bytesIn / 1024);
    out << Tr::tr("fronts:\n");
    for (const AgentClientStatus &c : status.clients)
        out << QStringLiteral("  %1 %2%3%4\n")
                   .arg(c.front)
                   .arg(c.pid)
                   .arg(c.interactive ? Tr::tr(" (can ask you)") : QString())
                   .arg(c.pid == QCoreApplication::applicationPid() ? Tr::tr(" (this command)") : QString());
}

int status(TermContext &context, AgentClient &agent, bool json)
{
    const OperationOutcome answered = waitFor(agent.status(), answerTimeoutMs);
    if (!answered.ok) {
        context.out() << Tr::tr("no agent runs for %1 (%2)\n").arg(agentPaths().dataDirectory, answered.error)
                      << Qt::flush;
        return Failure;
    }
    QString problem;
    const std::optional<AgentStatus> decoded = agentStatusFromCbor(answered.map(), &problem);
    if (!decoded) {
        context.error(problem);
        return Failure;
    }
    if (json)
        context.out() << QJsonDocument(answered.map().toJsonObject()).toJson(QJsonDocument::Compact) << '\n';
    else
        printStatus(context.out(), *decoded);
    context.out() << Qt::flush;
    return Ok;
}

int stop(TermContext &context, AgentClient &agent)
{
    const OperationOutcome answered = waitFor(agent.stopAgent(), answerTimeoutMs);
    if (!answered.ok) {
        context.out() << Tr::tr("no agent runs for %1\n").arg(agentPaths().dataDirectory) << Qt::flush;
        return Ok;
    }
    const qint64 inFlight = answered.map().value(QStringLiteral("submissions")).toInteger();
    if (inFlight > 0)
        context.out()
            << Tr::tr("agent %1 stops after %n submission(s) in flight", nullptr, int(inFlight)).arg(agent.agentPid())
            << '\n'
            << Qt::flush;
    // It closes the socket when its submissions are sent, then ends its process.
    const qint64 pid = agent.agentPid();
    bool gone = waitUntil(
        [&](const std::function<void()> &done) {
            if (!agent.isAttached())
                return done();
            QObject::connect(&agent, &AgentClient::detached, &agent, done);
        },
        stopTimeoutMs);
    for (int i = 0; gone && pid > 0 && ::kill(pid_t(pid), 0) == 0; ++i) {
        if (i == processExitTries) {
            gone = false;
            break;
        }
        QThread::msleep(processExitPollMs);
    }
    context.out() << (gone ? Tr::tr("agent %1 stopped\n").arg(agent.agentPid())
                           : Tr::tr("agent %1 is still finishing its submissions\n").arg(agent.agentPid()))
                  << Qt::flush;
    return gone ? Ok : Failure;
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
        } else if (action.isEmpty() && (arg == u"status" || arg == u"stop" || arg == u"on" || arg == u"off")) {
            action = arg;
        } else {
            context.error(Tr::tr("unexpected argument '%1' (usage: torchdeck agent [status|stop|on|off] [--json] "
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
    if (action.isEmpty())
        return runAgentProcess();
    if (action == u"on" || action == u"off")
        return autostart(context, action == u"on");
    context.openStore();
    AgentClient &agent = context.agent(false);
    return action == u"status" ? status(context, agent, json) : stop(context, agent);
}

} // namespace torchdeck::term
