#include "session/agentrequests.h"

#include "core/agent/agentcodec.h"
#include "core/agent/cborfields.h"
#include "core/agent/portforward.h"
#include "session/agent.h"
#include "session/agentpeer.h"
#include "session/clustersession.h"
#include "session/clustersessions.h"
#include "session/questionrouter.h"
#include "session/sessionoperation.h"

#include <QCoreApplication>

namespace torchdeck {

namespace {
const QString kCluster = QStringLiteral("cluster");
const QString kRun = QStringLiteral("run");
constexpr int maxPollMs = 24 * 3600 * 1000;
} // namespace

void AgentRequests::reply(const QCborValue &result)
{
    m_peer->send(agentReply(m_id, result));
}

void AgentRequests::error(const QString &message)
{
    m_peer->send(agentErrorReply(m_id, message));
}

bool AgentRequests::replied(const QCborValue &result)
{
    reply(result);
    return true;
}

bool AgentRequests::failed(const QString &message)
{
    error(message);
    return true;
}

void AgentRequests::handle(const AgentMessage &request)
{
    m_id = request.id;
    CborFields args(request.args);
    if (!m_peer->greeted && request.op != u"hello")
        return error(QCoreApplication::translate("torchdeck::AgentRequests", "say hello first"));
    if (agentOperation(request.op, args))
        return;
    const QString cluster = args.text(kCluster, true, 1024);
    if (!args.ok())
        return error(args.error());
    ClusterSession *session = m_agent->sessionFor(cluster);
    m_agent->m_questions->noteAsker(cluster, m_peer);
    if (!clusterOperation(request.op, args, session))
        error(QCoreApplication::translate("torchdeck::AgentRequests", "unknown request '%1'").arg(request.op));
}

void AgentRequests::hello(CborFields &args)
{
    m_peer->front = args.text(QStringLiteral("front"), true, 64);
    m_peer->pid = args.integer(QStringLiteral("pid"), 0, qint64(1) << 32);
    m_peer->interactive = args.flag(QStringLiteral("interactive"));
    m_peer->pollMs = int(args.integer(QStringLiteral("poll_ms"), 0, maxPollMs));
    if (!args.ok())
        return error(args.error());
    m_peer->greeted = true;
    m_agent->applyPollIntervals();
    reply(QCborMap{{QStringLiteral("version"), m_agent->version()},
                   {QStringLiteral("pid"), QCoreApplication::applicationPid()}});
    // A front that can ask a person: the clusters that waited for one try again, and their questions come here.
    if (m_peer->interactive) {
        for (const QString &cluster : m_agent->m_questions->clustersNeedingYou()) {
            m_agent->m_questions->clearNeedsYou(cluster);
            m_agent->sessionFor(cluster)->open();
        }
    }
    // What the agent's sessions hold now, so the front starts from the same picture.
    for (ClusterSession *session : m_agent->sessions()->all()) {
        m_peer->send(agentEvent(QStringLiteral("state"),
                                {{kCluster, session->name()},
                                 {QStringLiteral("state"), int(session->state())},
                                 {QStringLiteral("detail"), session->stateDetail()},
                                 {QStringLiteral("needs_you"), m_agent->m_questions->needsYou(session->name())}}));
        if (!session->workDirectory().isEmpty())
            m_peer->send(
                agentEvent(QStringLiteral("work_directory"),
                           {{kCluster, session->name()}, {QStringLiteral("directory"), session->workDirectory()}}));
    }
}

bool AgentRequests::agentOperation(const QString &op, CborFields &args)
{
    if (op == u"hello") {
        hello(args);
    } else if (op == u"status") {
        reply(agentStatusToCbor(m_agent->status()));
    } else if (op == u"stop" || op == u"handover") {
        reply(QCborMap{{QStringLiteral("submissions"), m_agent->m_submissionsInFlight}});
        m_agent->stop(op == u"stop" ? QStringLiteral("asked to stop by %1 %2").arg(m_peer->front).arg(m_peer->pid)
                                    : QStringLiteral("handing over to the %1 of another version").arg(m_peer->front));
    } else if (op == u"poll") {
        m_peer->pollMs = int(args.integer(QStringLiteral("ms"), 0, maxPollMs));
        if (!args.ok())
            return failed(args.error());
        m_agent->applyPollIntervals();
        reply(QCborMap{});
    } else if (op == u"profiles_changed") {
        reply(QCborMap{}); // read again before every request already
    } else if (op == u"forwards" || op == u"forward_stop") {
        const int localPort = int(args.integer(QStringLiteral("local_port"), 0, 65535));
        const QString run = args.text(kRun, false, 128);
        if (!args.ok())
            return failed(args.error());
        QCborArray listed;
        for (ClusterSession *session : m_agent->sessions()->all()) {
            const QList<PortForward> forwards =
                op == u"forwards" ? session->forwards() : session->stopForwards(localPort, run);
            for (const PortForward &forward : forwards)
                listed.append(portForwardToCbor(forward));
        }
        reply(QCborMap{{QStringLiteral("forwards"), listed}});
    } else if (op == u"cancel_request") {
        const qint64 id = args.integer(QStringLiteral("id"), 1, qint64(1) << 53);
        if (const QPointer<SessionOperation> operation = m_peer->operations.value(id))
            operation->stop();
        reply(QCborMap{});
    } else {
        return false;
    }
    return true;
}

bool AgentRequests::clusterOperation(const QString &op, CborFields &args, ClusterSession *session)
{
    SessionOperation *operation = nullptr;
    bool submission = false;
    if (op == u"open") {
        operation = session->connectOperation();
    } else if (op == u"refresh") {
        const QStringList runs = args.texts(QStringLiteral("runs"));
        const int maxAge = int(args.integer(QStringLiteral("max_age_ms"), 0, maxPollMs));
        if (args.ok())
            operation = session->refreshOperation(runs, maxAge);
    } else if (op == u"submit") {
        QString problem;
        const std::optional<LaunchRequest> request =
            launchRequestFromCbor(args.map(QStringLiteral("request"), true), &problem);
        const int chain = int(args.integer(QStringLiteral("chain"), 1, 1000, 1));
        if (!request)
            args.fail(problem);
        else if (args.ok())
            operation = session->submit(*request, chain);
        submission = true;
    } else if (op == u"submit_sweep") {
        QList<SweepPointRequest> points;
        QString problem;
        for (const QCborValue &each : args.array(QStringLiteral("points"))) {
            const std::optional<LaunchRequest> request =
                launchRequestFromCbor(each[QStringLiteral("request")].toMap(), &problem);
            if (!request) {
                args.fail(problem);
                break;
            }
            points.append({each[QStringLiteral("point")].toString(), *request});
        }
        CborFields sweep(args.map(QStringLiteral("sweep"), true));
        const SweepRecord record{sweep.text(QStringLiteral("id"), true, 128), session->name(),
                                 sweep.text(QStringLiteral("name"), false, 256), QDateTime::currentDateTimeUtc(),
                                 sweep.text(QStringLiteral("axes_json"), true)};
        const bool asArray = args.flag(QStringLiteral("array"));
        const int maxRunning = int(args.integer(QStringLiteral("max_running"), 0, 100000, 0));
        if (!sweep.ok())
            args.fail(sweep.error());
        else if (args.ok())
            operation = session->submitSweep(record, points, asArray, maxRunning);
        submission = true;
    } else if (op == u"resume") {
        const QString run = args.text(kRun, true, 128);
        const QString from = args.text(QStringLiteral("from"));
        const QString epochs = args.text(QStringLiteral("epochs"), false, 32);
        if (args.ok())
            operation = session->resume(run, ResumeFrom::fromText(from), epochs);
        submission = true;
    } else if (op == u"cancel") {
        const QStringList runs = args.texts(QStringLiteral("runs"), 10000);
        if (args.ok())
            operation = session->cancel(runs);
    } else if (op == u"requeue") {
        const QString run = args.text(kRun, true, 128);
        if (args.ok())
            operation = session->requeue(run);
    } else if (op == u"auto_restart") {
        const QString run = args.text(kRun, true, 128);
        const bool enabled = args.flag(QStringLiteral("enabled"), true);
        if (args.ok())
            operation = session->autoRestartOperation(run, enabled);
    } else if (op == u"checkpoints") {
        const QString run = args.text(kRun, true, 128);
        if (args.ok())
            operation = session->presentCheckpoints(run);
    } else if (op == u"delete_checkpoints") {
        const QString run = args.text(kRun, true, 128);
        const QStringList names = args.texts(QStringLiteral("names"), 10000);
        if (args.ok())
            operation = session->deleteCheckpoints(run, names);
    } else if (op == u"read_file" || op == u"follow_file") {
        const QString path = args.text(QStringLiteral("path"), true, 4096);
        const int lines = int(args.integer(QStringLiteral("lines"), -1, 1 << 24, -1));
        const qint64 offset = args.integer(QStringLiteral("offset"), 0, qint64(1) << 53);
        const qint64 lastBytes = args.integer(QStringLiteral("last_bytes"), 0, qint64(1) << 30, 0);
        if (args.ok())
            operation =
                op == u"read_file" ? session->readFile(path, lines) : session->followFile(path, offset, lastBytes);
    } else if (op == u"forward") {
        const QString run = args.text(kRun, true, 128);
        const int port = int(args.integer(QStringLiteral("port"), 1, 65535));
        const int localPort = int(args.integer(QStringLiteral("local_port"), 0, 65535));
        if (args.ok() && !args.has(QStringLiteral("port")))
            args.fail(
                QCoreApplication::translate("torchdeck::AgentRequests", "port: a port from 1 to 65535 is needed"));
        if (args.ok())
            operation = session->startForward(run, port, localPort);
    } else if (op == u"check") {
        QString problem;
        const std::optional<ClusterCheckSettings> settings =
            checkSettingsFromCbor(args.map(QStringLiteral("settings"), true), &problem);
        if (!settings)
            args.fail(problem);
        else if (args.ok())
            operation = session->check(*settings);
    } else if (op == u"stack_dump") {
        const QString run = args.text(kRun, true, 128);
        if (args.ok())
            operation = session->stackDump(run);
    } else if (op == u"resources") {
        const QStringList runs = args.texts(QStringLiteral("runs"), 1000);
        if (args.ok())
            operation = session->sampleResources(runs);
    } else if (op == u"look") {
        const QStringList runs = args.texts(QStringLiteral("runs"), 1000);
        if (!args.ok())
            return failed(args.error());
        m_peer->looking.insert(session->name(), runs);
        m_agent->applyLooking();
        return replied(QCborMap{});
    } else if (op == u"code_snapshots") {
        operation = session->codeSnapshots();
    } else if (op == u"prune_code") {
        operation = session->pruneCodeSnapshots();
    } else if (op == u"work_directory") {
        operation = session->workDirectoryOperation();
    } else if (op == u"answer_host_key") {
        const bool trust = args.flag(QStringLiteral("trust"));
        if (!args.ok())
            return failed(args.error());
        m_agent->m_questions->answerHostKey(m_peer, session, trust);
        return replied(QCborMap{});
    } else if (op == u"answer_credential") {
        std::optional<QString> answer; // none: cancelled
        if (args.has(QStringLiteral("answer")))
            answer = args.text(QStringLiteral("answer"), true, 65536);
        if (!args.ok())
            return failed(args.error());
        m_agent->m_questions->answerCredential(m_peer, session, std::move(answer));
        return replied(QCborMap{});
    } else {
        return false;
    }
    if (!args.ok())
        return failed(args.error());
    m_agent->track(m_peer, m_id, operation, submission);
    return true;
}

} // namespace torchdeck
