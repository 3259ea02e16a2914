#include "client/agentclient.h"

#include "client/agentlauncher.h"
#include "client/profilefollower.h"
#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"
#include "core/agent/agentpaths.h"
#include "core/agent/agentprotocol.h"
#include "core/agent/peercredentials.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <algorithm>

namespace torchdeck {

namespace {
Q_LOGGING_CATEGORY(lcClient, "torchdeck.client", QtInfoMsg)

constexpr int connectRetryMs = 50;
constexpr int startWaitTries = 400;   // 20 s for a new agent to listen
constexpr int busyRetryMs = 250;      // an agent that is stopping: wait for it to go
constexpr int busyWaitTries = 1200;   // 5 minutes (its submissions in flight finish first)
constexpr int busyRefusedTries = 40;  // 10 s of an agent that refuses connections for now
constexpr int reattachDelayMs = 1000; // the window, after its agent went away

// How long an attached agent may leave a front's waiting requests without a word, its status asked for meanwhile:
// 30 s, or TORCHDECK_AGENT_SILENCE_MS (tests).
int agentSilenceMs()
{
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("TORCHDECK_AGENT_SILENCE_MS", &ok);
    return ok && ms > 0 ? ms : 30000;
}

QString &programPath()
{
    static QString program;
    return program;
}

// Calls `then` with the event when the message is one of that kind (decoded as declared; a malformed one is
// dropped with a warning): whether it was.
template <class Event, class F> bool onNews(const AgentMessage &message, F then)
{
    if (!agent::isEvent<Event>(message.op))
        return false;
    if (const std::optional<Event> event = eventOf<Event>(message.op, message.args))
        then(*event);
    return true;
}

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
    m_answerDeadline.setSingleShot(true);
    m_answerDeadline.setInterval(kAgentAnswerDeadlineMs);
    connect(&m_answerDeadline, &QTimer::timeout, this, &AgentClient::noAnswer);
    m_liveness.setInterval(std::clamp(agentSilenceMs() / 6, 100, 5000));
    connect(&m_liveness, &QTimer::timeout, this, &AgentClient::checkLiveness);
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
    m_busyTries = 0;
    connectSocket();
}

void AgentClient::detach()
{
    m_retry.stop();
    m_answerDeadline.stop();
    m_liveness.stop();
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
    m_answerDeadline.start();
    m_helloId = m_nextId++;
    const agent::Hello::Request hello{m_options.front, QCoreApplication::applicationPid(), m_options.interactive,
                                      m_options.pollMs, expectedAgentVersion()};
    m_socket.write(
        encodeAgentFrame(agentRequest(m_helloId, QString::fromUtf16(agent::Hello::name), agent::encodeFields(hello))));
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
    m_answerDeadline.stop();
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
    const agent::ClosingEvent closing = std::exchange(m_closing, {});
    if (was == Phase::Greeting && closing.busy && ++m_busyTries <= busyRefusedTries) {
        // Refused for now (a flood of connections): again shortly, as a front that found it stopping does.
        m_phase = Phase::Connecting;
        m_startedAgent = true; // it runs
        m_retry.start(busyRetryMs);
        return;
    }
    lost(closing.reason.isEmpty() ? tr("the agent stopped") : closing.reason);
}

void AgentClient::lost(const QString &reason)
{
    m_answerDeadline.stop();
    m_liveness.stop();
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
    // A submission the agent had: it may have reached the scheduler. Said so, with what happens next.
    const QString submission =
        tr("%1 while submitting: the job may have reached the scheduler. `torchdeck runs` shows what became of it: "
           "an agent that goes on (one only stopped, once it runs again) sends it, and a new agent looks for a "
           "claimed attempt's job (the queue, the scheduler's history, the run's directory) before it sends it "
           "again")
            .arg(reason);
    const QHash<qint64, Pending> pending = std::exchange(m_pending, {});
    for (const Pending &p : pending) {
        if (p.operation)
            p.operation->fail(p.sent && agent::isSubmission(p.op) ? submission : reason);
    }
}

void AgentClient::readFrames()
{
    m_lastHeard.start();
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
                // Asked in its own protocol's words: a handover request is the same in every version.
                handOver(message ? message->version : kAgentProtocolVersion);
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
    if (message.kind == AgentMessageKind::Reply && m_pingId != 0 && message.id == m_pingId) {
        m_pingId = 0;
        return;
    }
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
    if (agent::isEvent<agent::ProgressEvent>(message.op)) {
        if (const auto progress = eventOf<agent::ProgressEvent>(message.op, message.args))
            operation->reportProgress(progress->step, progress->done, progress->total);
    } else if (agent::isEvent<agent::OutputEvent>(message.op)) {
        if (const auto output = eventOf<agent::OutputEvent>(message.op, message.args))
            operation->reportOutput(output->text);
    } else {
        operation->reportEvent(message.op, message.args); // the operation's own (core/agent/agentevents.h)
    }
}

void AgentClient::noAnswer()
{
    if (m_phase != Phase::Greeting)
        return;
    // Its socket took the connection (the kernel does, for a stopped process too), and nothing answered.
    const qint64 pid = peerCredentials(m_socket.socketDescriptor()).pid;
    m_agentPid = pid > 0 ? pid : 0;
    m_agentSilent = true;
    lost(pid > 0 ? tr("the agent, pid %1, does not answer: stopped? (`torchdeck agent restart` replaces it)").arg(pid)
                 : tr("the agent does not answer: stopped? (`torchdeck agent restart` replaces it)"));
}

void AgentClient::checkLiveness()
{
    if (m_phase != Phase::Attached)
        return;
    const bool waiting =
        std::any_of(m_pending.cbegin(), m_pending.cend(), [](const Pending &p) { return p.sent && p.operation; });
    if (!waiting || m_lastHeard.elapsed() < m_liveness.interval())
        return;
    if (m_pingId == 0) {
        m_pingId = m_nextId++;
        m_pingSent.start();
        m_socket.write(encodeAgentFrame(agentRequest(m_pingId, QString::fromUtf16(agent::Status::name))));
        return;
    }
    const qint64 silent = std::min(m_lastHeard.elapsed(), m_pingSent.elapsed());
    if (silent < agentSilenceMs())
        return;
    m_agentSilent = true;
    lost(tr("the agent, pid %1, has not answered for %2 s: stopped? (`torchdeck agent restart` replaces it)")
             .arg(m_agentPid)
             .arg(silent / 1000));
}

void AgentClient::helloAnswered(const AgentMessage &reply)
{
    m_answerDeadline.stop();
    if (!reply.ok) { // an agent that is stopping: wait for it to go, then start a new one
        m_phase = Phase::Connecting;
        m_socket.abort();
        m_startedAgent = true; // not yet: it still holds the lock
        if (++m_connectTries > busyWaitTries)
            return lost(reply.error);
        m_retry.start(busyRetryMs);
        return;
    }
    const std::optional<agent::Hello::Reply> hello = replyOf<agent::Hello>(reply.result);
    if (!hello)
        return handOver(); // an agent that answers in other words: of another version
    m_agentVersion = hello->version;
    m_agentPid = hello->pid;
    m_agentOperations = hello->operations;
    // Once per attach: an agent that is still of another version after a handover (two installations that
    // disagree) is used as it is, rather than handed over for ever.
    if (m_agentVersion != expectedAgentVersion() && !m_handedOver) {
        qCDebug(lcClient) << "the agent" << m_agentPid << "is version" << m_agentVersion << "; asking it to hand over";
        return handOver();
    }
    m_phase = Phase::Attached;
    m_attached = true;
    m_agentSilent = false;
    m_pingId = 0;
    m_lastHeard.start();
    m_liveness.start();
    m_connectTries = 0;
    m_busyTries = 0;
    for (auto it = m_looking.cbegin(); it != m_looking.cend(); ++it) // an agent started anew knows none
        call<agent::Look>({it.key(), it.value()});
    for (auto it = m_pending.begin(); it != m_pending.end(); ++it) {
        if (!it->sent)
            send(it.key());
    }
    emit attached();
}

void AgentClient::handOver(int protocolVersion)
{
    m_handedOver = true;
    m_phase = Phase::HandingOver;
    AgentMessage handover = agentRequest(m_nextId++, QString::fromUtf16(agent::Handover::name));
    handover.version = protocolVersion;
    m_socket.write(encodeAgentFrame(handover));
}

void AgentClient::send(qint64 id)
{
    Pending &pending = m_pending[id];
    // A front newer than its agent (two installations that disagree, used as they are): said before it is sent.
    if (!m_agentOperations.isEmpty() && !m_agentOperations.contains(pending.op)) {
        const Pending unknown = m_pending.take(id);
        if (unknown.operation)
            unknown.operation->fail(
                tr("the agent (pid %1, version %2) does not know '%3': restart it with `torchdeck agent restart`")
                    .arg(m_agentPid)
                    .arg(m_agentVersion, unknown.op));
        return;
    }
    pending.sent = true;
    m_socket.write(encodeAgentFrame(agentRequest(id, pending.op, pending.args)));
}

void AgentClient::followProfiles()
{
    if (!m_profiles || findChild<ProfileFollower *>())
        return;
    auto *follower = new ProfileFollower(m_profiles, this);
    connect(follower, &ProfileFollower::followed, this, &AgentClient::profilesFollowed);
    connect(follower, &ProfileFollower::failed, this, &AgentClient::profilesUnreadable);
}

SessionOperation *AgentClient::request(const QString &op, const QCborMap &args)
{
    const qint64 id = m_nextId++;
    auto *operation = new SessionOperation(this);
    m_pending.insert(id, {op, args, operation, false});
    operation->setStopHandler([this, id, operation] {
        const auto it = m_pending.find(id);
        if (it != m_pending.end() && it->sent && m_attached) {
            m_socket.write(encodeAgentFrame(agentRequest(m_nextId++, QString::fromUtf16(agent::CancelRequest::name),
                                                         agent::encodeFields(agent::CancelRequest::Request{id}))));
            return; // its reply ends it
        }
        m_pending.remove(id);
        operation->fail(tr("stopped"));
    });
    operation->setInputHandler([this, id](const QByteArray &bytes, int cols, int rows) {
        const auto it = m_pending.find(id);
        if (it != m_pending.end() && it->sent && m_attached)
            m_socket.write(encodeAgentFrame(
                agentRequest(m_nextId++, QString::fromUtf16(agent::TerminalInput::name),
                             agent::encodeFields(agent::TerminalInput::Request{id, bytes, cols, rows}))));
    });
    if (m_attached)
        send(id);
    else
        attach();
    return operation;
}

void AgentClient::event(const AgentMessage &message)
{
    const auto pending = [this](const QString &cluster, bool restartsPending) {
        m_clusters[cluster].restartsPending = restartsPending;
    };
    const bool known = // each of the agent's news, decoded as declared (core/agent/agentevents.h)
        onNews<agent::StateEvent>(message,
                                  [this](const agent::StateEvent &e) {
                                      ClusterNews &news = m_clusters[e.cluster];
                                      news.state = e.state;
                                      news.detail = e.detail;
                                      news.needsYou = e.needsYou;
                                      if (news.state != ConnectionState::Connected)
                                          news.nextPoll = {};
                                      emit stateChanged(e.cluster, news.state, news.detail);
                                  }) ||
        onNews<agent::RunEvent>(message, [this](const agent::RunEvent &e) { emit runUpdated(e.run); }) ||
        onNews<agent::MetricsEvent>(message,
                                    [this](const agent::MetricsEvent &e) {
                                        m_series.apply(e.run, e.attempt, e.events, e.first);
                                        emit metricsArrived(e.run, e.attempt, e.events);
                                    }) ||
        onNews<agent::SeriesResetEvent>(message,
                                        [this](const agent::SeriesResetEvent &e) {
                                            m_series.forget(e.run);
                                            emit seriesReset(e.run);
                                        }) ||
        onNews<agent::NoticeEvent>(
            message, [this](const agent::NoticeEvent &e) { emit notice(e.run, e.event, e.title, e.body); }) ||
        onNews<agent::RefreshedEvent>(message,
                                      [this, pending](const agent::RefreshedEvent &e) {
                                          pending(e.cluster, e.restartsPending);
                                          m_clusters[e.cluster].nextPoll =
                                              e.nextPollMs < 0 ? QDateTime()
                                                               : QDateTime::currentDateTime().addMSecs(e.nextPollMs);
                                          emit refreshed(e.cluster, e.problem);
                                      }) ||
        onNews<agent::RestartedEvent>(message,
                                      [this, pending](const agent::RestartedEvent &e) {
                                          pending(e.cluster, e.restartsPending);
                                          emit restarted(e.run, e.job, e.reason);
                                      }) ||
        onNews<agent::RestartFailedEvent>(message,
                                          [this, pending](const agent::RestartFailedEvent &e) {
                                              pending(e.cluster, e.restartsPending);
                                              emit restartFailed(e.run, e.error);
                                          }) ||
        onNews<agent::SubmittedEvent>(message, [this](const agent::SubmittedEvent &e) { emit submitted(e.result); }) ||
        onNews<agent::StoreFailedEvent>(message,
                                        [this](const agent::StoreFailedEvent &e) { emit storeFailed(e.error); }) ||
        onNews<agent::WorkDirectoryEvent>(message,
                                          [this](const agent::WorkDirectoryEvent &e) {
                                              m_clusters[e.cluster].workDirectory = e.directory;
                                              emit workDirectoryKnown(e.cluster, e.directory);
                                          }) ||
        onNews<agent::HostKeyEvent>(
            message, [this](const agent::HostKeyEvent &e) { emit hostKeyConfirmationNeeded(e.cluster, e.key); }) ||
        onNews<agent::CredentialEvent>(
            message, [this](const agent::CredentialEvent &e) { emit credentialNeeded(e.cluster, e.prompt); }) ||
        onNews<agent::ClosingEvent>(message,
                                    [this](const agent::ClosingEvent &e) { m_closing = e; }); // its end follows
    if (!known)
        qCDebug(lcClient) << "news the agent sends and this front does not know:" << message.op;
}

} // namespace torchdeck
