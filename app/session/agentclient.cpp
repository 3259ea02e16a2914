#include "session/agentclient.h"

#include "core/agent/agentcodec.h"
#include "core/agent/agentpaths.h"
#include "core/agent/agentprotocol.h"
#include "core/agent/cborfields.h"
#include "session/agentlauncher.h"
#include "session/sessionoperation.h"

#include <QCborArray>
#include <QCoreApplication>
#include <QLoggingCategory>

namespace torchdeck {

namespace {
Q_LOGGING_CATEGORY(lcClient, "torchdeck.client", QtInfoMsg)

constexpr int connectRetryMs = 50;
constexpr int startWaitTries = 400;   // 20 s for a new agent to listen
constexpr int busyRetryMs = 250;      // an agent that is stopping: wait for it to go
constexpr int busyWaitTries = 1200;   // 5 minutes (its submissions in flight finish first)
constexpr int reattachDelayMs = 1000; // the window, after its agent went away

QString &programPath()
{
    static QString program;
    return program;
}

const QString kCluster = QStringLiteral("cluster");
} // namespace

void AgentClient::setAgentProgram(const QString &program)
{
    programPath() = program;
}

QString AgentClient::agentProgram()
{
    return programPath();
}

AgentClient::AgentClient(Options options, RunStore *store, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_store(store)
    , m_series(store)
    , m_reader(std::make_unique<AgentFrameReader>())
{
    qRegisterMetaType<LaunchResult>();
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &AgentClient::connectSocket);
    connect(&m_socket, &QLocalSocket::connected, this, &AgentClient::socketConnected);
    connect(&m_socket, &QLocalSocket::errorOccurred, this, &AgentClient::socketFailed);
    connect(&m_socket, &QLocalSocket::disconnected, this, &AgentClient::socketGone);
    connect(&m_socket, &QLocalSocket::readyRead, this, &AgentClient::readFrames);
}

AgentClient::~AgentClient()
{
    m_socket.disconnect(this);
    m_socket.abort();
    for (const Pending &pending : std::as_const(m_pending)) {
        if (pending.operation)
            pending.operation->disconnect();
    }
}

QString AgentClient::expectedAgentVersion()
{
    // The agent this front would start; a front that starts none (tests with an agent of their own) is its own.
    return agentBuildVersion(agentProgram().isEmpty() ? QCoreApplication::applicationFilePath() : agentProgram());
}

void AgentClient::attach()
{
    if (m_phase != Phase::Detached)
        return;
    m_handedOver = false;
    m_startedAgent = false;
    m_connectTries = 0;
    connectSocket();
}

void AgentClient::detach()
{
    m_retry.stop();
    m_phase = Phase::Detached;
    m_attached = false;
    m_socket.abort();
    failAll(tr("detached from the agent"));
}

void AgentClient::connectSocket()
{
    m_phase = Phase::Connecting;
    m_reader = std::make_unique<AgentFrameReader>();
    m_socket.abort();
    m_socket.connectToServer(agentPaths().socketPath);
}

void AgentClient::socketConnected()
{
    m_phase = Phase::Greeting;
    m_helloId = m_nextId++;
    m_socket.write(encodeAgentFrame(agentRequest(m_helloId, QStringLiteral("hello"),
                                                 {{QStringLiteral("front"), m_options.front},
                                                  {QStringLiteral("pid"), QCoreApplication::applicationPid()},
                                                  {QStringLiteral("interactive"), m_options.interactive},
                                                  {QStringLiteral("poll_ms"), m_options.pollMs},
                                                  {QStringLiteral("version"), expectedAgentVersion()}})));
}

void AgentClient::socketFailed(QLocalSocket::LocalSocketError error)
{
    if (m_phase != Phase::Connecting)
        return; // a connection that broke later ends in socketGone
    const bool noAgent = error == QLocalSocket::ServerNotFoundError || error == QLocalSocket::ConnectionRefusedError;
    if (!noAgent)
        return lost(tr("cannot reach the agent at %1: %2").arg(agentPaths().socketPath, m_socket.errorString()));
    if (!m_startedAgent) {
        if (agentProgram().isEmpty() || !m_options.startAgent)
            return lost(tr("no torchdeck agent runs for %1").arg(agentPaths().dataDirectory));
        const AgentPaths paths = agentPaths();
        if (const QString problem = makePrivateDirectory(paths.dataDirectory); !problem.isEmpty())
            return lost(problem);
        qCDebug(lcClient) << "starting the agent" << agentProgram();
        if (const QString problem = startAgentProcess(agentProgram(), paths.logFile); !problem.isEmpty())
            return lost(problem);
        m_startedAgent = true;
        m_connectTries = 0;
    }
    if (++m_connectTries > startWaitTries)
        return lost(tr("the agent did not start (its log: %1)").arg(agentPaths().logFile));
    m_retry.start(connectRetryMs);
}

void AgentClient::socketGone()
{
    const Phase was = m_phase;
    if (was == Phase::Detached || was == Phase::Connecting)
        return;
    if (was == Phase::HandingOver) {
        // The old agent finished what it had in flight and went: start ours.
        m_startedAgent = false;
        m_connectTries = 0;
        m_retry.start(connectRetryMs);
        m_phase = Phase::Connecting;
        return;
    }
    lost(tr("the agent stopped"));
}

void AgentClient::lost(const QString &reason)
{
    const bool wasAttached = m_attached;
    m_phase = Phase::Detached;
    m_attached = false;
    m_socket.abort();
    failAll(reason);
    for (auto it = m_clusters.begin(); it != m_clusters.end(); ++it) {
        if (it->state != ConnectionState::Disconnected) {
            it->state = ConnectionState::Disconnected;
            emit stateChanged(it.key(), it->state, reason);
        }
    }
    emit detached(reason);
    if (m_options.keepAttached && (wasAttached || (!agentProgram().isEmpty() && m_options.startAgent)))
        QTimer::singleShot(reattachDelayMs, this, &AgentClient::attach);
}

void AgentClient::failAll(const QString &reason)
{
    const QHash<qint64, Pending> pending = std::exchange(m_pending, {});
    for (const Pending &p : pending) {
        if (p.operation)
            p.operation->fail(reason);
    }
}

void AgentClient::readFrames()
{
    m_reader->append(m_socket.readAll());
    while (m_phase != Phase::Detached) {
        const std::optional<QByteArray> payload = m_reader->next();
        if (!payload) {
            if (m_reader->failed())
                lost(tr("the agent sent %1").arg(m_reader->error()));
            return;
        }
        QString error;
        const std::optional<AgentMessage> message = decodeAgentMessage(*payload, &error);
        if (!message || message->version != kAgentProtocolVersion) {
            if (m_phase == Phase::Greeting) { // an agent of another protocol: ask it to go
                m_phase = Phase::HandingOver;
                m_socket.write(encodeAgentFrame(agentRequest(m_nextId++, QStringLiteral("handover"))));
                return;
            }
            return lost(tr("the agent sent an unreadable message: %1").arg(error));
        }
        received(*message);
    }
}

void AgentClient::received(const AgentMessage &message)
{
    if (message.kind == AgentMessageKind::Reply && message.id == m_helloId && m_phase == Phase::Greeting)
        return helloAnswered(message);
    if (message.kind == AgentMessageKind::Event && message.id == 0)
        return event(message);
    const auto it = m_pending.find(message.id);
    if (it == m_pending.end())
        return; // a request this front stopped caring for
    SessionOperation *operation = it->operation;
    if (message.kind == AgentMessageKind::Reply) {
        m_pending.erase(it);
        if (!operation)
            return;
        if (message.ok)
            operation->finish(message.result);
        else
            operation->fail(message.error);
        return;
    }
    if (!operation)
        return;
    CborFields args(message.args);
    if (message.op == u"progress")
        operation->reportProgress(args.text(QStringLiteral("step")),
                                  args.integer(QStringLiteral("done"), -1, qint64(1) << 53),
                                  args.integer(QStringLiteral("total"), -1, qint64(1) << 53));
    else if (message.op == u"output")
        operation->reportOutput(args.text(QStringLiteral("text")));
    else
        operation->reportEvent(message.op, message.args);
}

void AgentClient::helloAnswered(const AgentMessage &reply)
{
    if (!reply.ok) { // an agent that is stopping: wait for it to go, then start a new one
        m_phase = Phase::Connecting;
        m_socket.abort();
        m_startedAgent = true; // not yet: it still holds the lock
        if (++m_connectTries > busyWaitTries)
            return lost(reply.error);
        m_retry.start(busyRetryMs);
        return;
    }
    CborFields result(reply.result.toMap());
    m_agentVersion = result.text(QStringLiteral("version"));
    m_agentPid = result.integer(QStringLiteral("pid"), 0, qint64(1) << 32);
    // Once per attach: an agent that is still of another version after a handover (two installations that
    // disagree) is used as it is, rather than handed over for ever.
    if (m_agentVersion != expectedAgentVersion() && !m_handedOver) {
        m_handedOver = true;
        qCDebug(lcClient) << "the agent" << m_agentPid << "is version" << m_agentVersion << "; asking it to hand over";
        m_phase = Phase::HandingOver;
        m_socket.write(encodeAgentFrame(agentRequest(m_nextId++, QStringLiteral("handover"))));
        return;
    }
    m_phase = Phase::Attached;
    m_attached = true;
    m_connectTries = 0;
    for (auto it = m_looking.cbegin(); it != m_looking.cend(); ++it) // an agent started anew knows none
        request(QStringLiteral("look"), {{QStringLiteral("cluster"), it.key()},
                                         {QStringLiteral("runs"), QCborArray::fromStringList(it.value())}});
    for (auto it = m_pending.begin(); it != m_pending.end(); ++it) {
        if (!it->sent)
            send(it.key());
    }
    emit attached();
}

void AgentClient::send(qint64 id)
{
    Pending &pending = m_pending[id];
    pending.sent = true;
    m_socket.write(encodeAgentFrame(agentRequest(id, pending.op, pending.args)));
}

SessionOperation *AgentClient::request(const QString &op, const QCborMap &args)
{
    const qint64 id = m_nextId++;
    auto *operation = new SessionOperation(this);
    m_pending.insert(id, {op, args, operation, false});
    operation->setStopHandler([this, id, operation] {
        const auto it = m_pending.find(id);
        if (it != m_pending.end() && it->sent && m_attached) {
            m_socket.write(encodeAgentFrame(
                agentRequest(m_nextId++, QStringLiteral("cancel_request"), {{QStringLiteral("id"), id}})));
            return; // its reply ends it
        }
        m_pending.remove(id);
        operation->fail(tr("stopped"));
    });
    if (m_attached)
        send(id);
    else
        attach();
    return operation;
}

void AgentClient::event(const AgentMessage &message)
{
    CborFields args(message.args);
    const QString &name = message.op;
    QString problem;
    if (args.has(QStringLiteral("restarts_pending")))
        m_clusters[args.text(kCluster)].restartsPending = args.flag(QStringLiteral("restarts_pending"));
    if (name == u"state") {
        const QString cluster = args.text(kCluster);
        ClusterNews &news = m_clusters[cluster];
        news.state = connectionStateFromCbor(message.args.value(QStringLiteral("state"))).value_or(news.state);
        news.detail = args.text(QStringLiteral("detail"));
        news.needsYou = args.flag(QStringLiteral("needs_you"));
        if (news.state != ConnectionState::Connected)
            news.nextPoll = {};
        emit stateChanged(cluster, news.state, news.detail);
    } else if (name == u"run") {
        emit runUpdated(args.text(QStringLiteral("run")));
    } else if (name == u"metrics") {
        const QString run = args.text(QStringLiteral("run"));
        const int attempt = int(args.integer(QStringLiteral("attempt"), 0, 1 << 20));
        const qint64 first = args.integer(QStringLiteral("first"), 0, qint64(1) << 53);
        const std::optional<QList<MetricEvent>> events =
            metricEventsFromCbor(args.array(QStringLiteral("events")), &problem);
        if (!events || !args.ok()) {
            qCWarning(lcClient) << "unreadable metrics from the agent:" << problem << args.error();
            return;
        }
        m_series.apply(run, attempt, *events, first);
        emit metricsArrived(run, attempt, *events);
    } else if (name == u"series_reset") {
        const QString run = args.text(QStringLiteral("run"));
        m_series.forget(run);
        emit seriesReset(run);
    } else if (name == u"notice") {
        emit notice(args.text(QStringLiteral("run")), args.text(QStringLiteral("event")),
                    args.text(QStringLiteral("title")), args.text(QStringLiteral("body")));
    } else if (name == u"refreshed") {
        const qint64 nextMs = args.integer(QStringLiteral("next_poll_ms"), -1, 1 << 30, -1);
        m_clusters[args.text(kCluster)].nextPoll =
            nextMs < 0 ? QDateTime() : QDateTime::currentDateTime().addMSecs(nextMs);
        emit refreshed(args.text(kCluster), args.text(QStringLiteral("problem")));
    } else if (name == u"restarted") {
        emit restarted(args.text(QStringLiteral("run")), args.text(QStringLiteral("job")),
                       args.text(QStringLiteral("reason")));
    } else if (name == u"restart_failed") {
        emit restartFailed(args.text(QStringLiteral("run")), args.text(QStringLiteral("error")));
    } else if (name == u"submitted") {
        if (const std::optional<LaunchResult> result = launchResultFromCbor(message.args, &problem))
            emit submitted(*result);
    } else if (name == u"store_failed") {
        emit storeFailed(args.text(QStringLiteral("error")));
    } else if (name == u"work_directory") {
        const QString cluster = args.text(kCluster);
        m_clusters[cluster].workDirectory = args.text(QStringLiteral("directory"));
        emit workDirectoryKnown(cluster, m_clusters[cluster].workDirectory);
    } else if (name == u"host_key") {
        if (const std::optional<HostKeyCheck> key = hostKeyFromCbor(args.map(QStringLiteral("key")), &problem))
            emit hostKeyConfirmationNeeded(args.text(kCluster), *key);
    } else if (name == u"credential") {
        if (const std::optional<CredentialPrompt> prompt =
                credentialPromptFromCbor(args.map(QStringLiteral("prompt")), &problem))
            emit credentialNeeded(args.text(kCluster), *prompt);
    }
}

} // namespace torchdeck
