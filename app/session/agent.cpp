#include "session/agent.h"

#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/agent/agentprotocol.h"
#include "core/agent/peercredentials.h"
#include "core/appidentity.h"
#include "core/runs/restartdecision.h"
#include "core/sshconfigparser.h"
#include "session/agentlistener.h"
#include "session/agentpeer.h"
#include "session/agentrequests.h"
#include "session/clustersession.h"
#include "session/clustersessions.h"
#include "session/notifier.h"
#include "session/questionrouter.h"
#include "session/runmover.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLocalSocket>
#include <QLockFile>
#include <QLoggingCategory>
#include <algorithm>
#include <unistd.h>

namespace torchdeck {

namespace {
Q_LOGGING_CATEGORY(lcAgent, "torchdeck.agent")

constexpr int backgroundPollMs = 10000; // no front asks for more: the runs are only watched for restarts
constexpr int idleCheckMs = 5000;
constexpr int retryTrackingMs = 60000; // a cluster with unfinished runs that could not be reached
// Fronts say hello as soon as they connect: more than these waiting for theirs is a flood, refused at once.
constexpr int maxUngreetedPeers = 32;
} // namespace

Agent::Agent(QObject *parent)
    : QObject(parent)
    , m_paths(agentPaths())
    , m_started(QDateTime::currentDateTimeUtc())
    , m_version(agentBuildVersion(QCoreApplication::applicationFilePath()))
    , m_questions(std::make_unique<QuestionRouter>())
    , m_notifier(new Notifier(this))
    , m_mover(new RunMover(
          &m_store,
          [this](const QString &cluster) {
              return m_sessions && unknownClusterProblem(cluster).isEmpty() ? sessionFor(cluster) : nullptr;
          },
          this))
    , m_idleExitMinutes(agentIdleExitMinutes())
{
    // A move sends a job: an agent stop waits for it as for any submission.
    connect(m_mover, &RunMover::started, this, [this] { ++m_submissionsInFlight; });
    connect(m_mover, &RunMover::settled, this, [this] {
        --m_submissionsInFlight;
        finishStopIfQuiet();
    });
    connect(m_mover, &RunMover::notice, this, [this](const RunNotice &notice, ClusterSession *where) {
        qCInfo(lcAgent).noquote() << QStringLiteral("run %1 %2").arg(notice.runId.left(8), notice.body());
        if (ClusterSession *session = where ? where : sessionFor(notice.cluster))
            tell(notice, session);
    });
    m_idleTimer.setInterval(idleCheckMs);
    connect(&m_idleTimer, &QTimer::timeout, this, &Agent::checkIdle);
    m_retryTimer.setInterval(retryTrackingMs);
    connect(&m_retryTimer, &QTimer::timeout, this, &Agent::retryTracking);
}

Agent::~Agent()
{
    for (AgentPeer *peer : std::as_const(m_peers))
        peer->disconnect(this);
    m_sessions.reset(); // before the store and profiles they use
    if (m_listener)
        m_listener->close();
}

bool Agent::start(QString *error)
{
    const QString socketDirectory = QFileInfo(m_paths.socketPath).absolutePath();
    for (const QString &directory : {m_paths.dataDirectory, socketDirectory}) {
        if (const QString problem = makePrivateDirectory(directory); !problem.isEmpty()) {
            *error = problem;
            return false;
        }
    }
    m_lock = std::make_unique<QLockFile>(m_paths.lockFile);
    m_lock->setStaleLockTime(0); // held as long as the agent lives; a dead holder's lock is taken over
    if (!m_lock->tryLock(0)) {
        error->clear(); // another agent of this store runs (or starts): it serves the fronts
        return false;
    }
    if (const StoreStatus opened = m_store.open(RunStore::defaultPath()); !opened.ok()) {
        *error = tr("cannot open the run store: %1").arg(opened.error);
        return false;
    }
    QString problem;
    if (!m_profiles.load(&problem)) {
        *error = problem;
        return false;
    }
    m_profilesRead = QFileInfo(m_profiles.path()).lastModified();
    m_sessions = std::make_unique<ClusterSessions>(&m_store, &m_profiles);
    connect(m_sessions.get(), &ClusterSessions::sessionAdded, this, &Agent::sessionAdded);
    m_listener = new AgentListener(this); // replaces a dead agent's socket: the lock says none listens
    if (const QString refused = m_listener->listen(m_paths.socketPath); !refused.isEmpty()) {
        *error = refused;
        return false;
    }
    connect(m_listener, &AgentListener::accepted, this, &Agent::acceptPeer);
    qCInfo(lcAgent) << "agent" << QCoreApplication::applicationPid() << "listening on" << m_paths.socketPath;
    const QStringList tracked = m_sessions->resumeTracking();
    if (!tracked.isEmpty())
        qCInfo(lcAgent) << "tracking the unfinished runs of" << tracked;
    m_idleTimer.start();
    m_retryTimer.start();
    return true;
}

void Agent::acceptPeer(qintptr descriptor)
{
    // The socket's folder is private already; the peer's uid is checked all the same (a shared folder,
    // a socket passed on).
    if (peerCredentials(descriptor).uid != qint64(getuid())) {
        qCWarning(lcAgent) << "refused a front of another user";
        ::close(int(descriptor));
        return;
    }
    if (ungreetedPeers() >= maxUngreetedPeers) {
        AgentListener::refuse(int(descriptor)); // the front tries again shortly
        return;
    }
    auto *socket = new QLocalSocket;
    if (!socket->setSocketDescriptor(descriptor)) {
        ::close(int(descriptor));
        delete socket;
        return;
    }
    auto *peer = new AgentPeer(socket, this);
    connect(peer, &AgentPeer::message, this, &Agent::peerMessage);
    connect(peer, &AgentPeer::gone, this, &Agent::peerGone);
    m_peers.append(peer);
    m_idleSince = {};
}

int Agent::ungreetedPeers() const
{
    return int(std::count_if(m_peers.cbegin(), m_peers.cend(), [](const AgentPeer *peer) { return !peer->greeted; }));
}

bool Agent::stillHome()
{
    QString lost;
    if (!QFileInfo(m_paths.dataDirectory).isDir() || !QFileInfo::exists(m_store.path()))
        lost = tr("its data folder %1 or its run store is gone").arg(m_paths.dataDirectory);
    else if (m_listener && !m_listener->ownsItsPath())
        lost = tr("its socket %1 is gone or another's").arg(m_paths.socketPath);
    if (lost.isEmpty())
        return true;
    stop(lost); // a new agent can start: fronts could not reach this one, or it writes a store nobody reads
    return false;
}

QString Agent::unknownClusterProblem(const QString &cluster) const
{
    if (cluster.isEmpty())
        return tr("no cluster named");
    if (m_sessions->existing(cluster) || m_profiles.contains(cluster))
        return {};
    const SshConfig config = readUserSshConfig();
    if (config.names(cluster))
        return {};
    const auto runs = m_store.runs(cluster);
    if (runs.ok() && !runs.value.isEmpty())
        return {};
    return noSuchClusterMessage(cluster, config);
}

void Agent::peerGone(AgentPeer *peer)
{
    m_peers.removeAll(peer);
    m_questions->peerGone(peer, m_peers, [this](const QString &cluster) { return m_sessions->existing(cluster); });
    for (const QPointer<SessionOperation> &operation : std::as_const(peer->operations)) {
        // A submission goes on (its job may be on its way); what only served this front ends.
        if (operation && operation->property("submission").toBool() == false)
            operation->stop();
    }
    peer->deleteLater();
    applyPollIntervals();
    applyLooking();
}

void Agent::applyLooking()
{
    if (!m_sessions)
        return;
    for (ClusterSession *session : m_sessions->all()) {
        QStringList runs;
        for (const AgentPeer *peer : std::as_const(m_peers)) {
            for (const QString &run : peer->looking.value(session->name())) {
                if (!runs.contains(run))
                    runs.append(run);
            }
        }
        session->setLookedAt(runs);
    }
}

void Agent::peerMessage(AgentPeer *peer, const AgentMessage &message)
{
    if (m_stopping && message.op != u"status" && message.op != u"stop" && message.op != u"handover")
        return peer->send(agentErrorReply(message.id, tr("the agent is stopping")));
    reloadProfilesIfChanged();
    AgentRequests(this, peer).handle(message);
}

void Agent::track(AgentPeer *peer, qint64 id, SessionOperation *operation, bool submission)
{
    const QPointer<AgentPeer> front(peer);
    peer->operations.insert(id, operation);
    operation->setProperty("submission", submission);
    if (submission)
        ++m_submissionsInFlight;
    connect(operation, &SessionOperation::progress, peer, [front, id](const QString &step, qint64 done, qint64 total) {
        front->send(agent::eventMessage(agent::ProgressEvent{step, done, total}, id));
    });
    connect(operation, &SessionOperation::output, peer,
            [front, id](const QString &text) { front->send(agent::eventMessage(agent::OutputEvent{text}, id)); });
    connect(operation, &SessionOperation::event, peer,
            [front, id](const QString &name, const QCborMap &args) { front->send(agentEvent(name, args, id)); });
    const auto ended = [this, front, id, submission] {
        if (front)
            front->operations.remove(id);
        if (submission) {
            --m_submissionsInFlight;
            finishStopIfQuiet();
        }
    };
    connect(operation, &SessionOperation::finished, this, [front, id, ended](const QCborValue &result) {
        if (front)
            front->send(agentReply(id, result));
        ended();
    });
    connect(operation, &SessionOperation::failed, this, [front, id, ended](const QString &error) {
        if (front)
            front->send(agentErrorReply(id, error));
        ended();
    });
}

ClusterSession *Agent::sessionFor(const QString &cluster)
{
    return m_sessions->session(cluster);
}

void Agent::sessionAdded(ClusterSession *session)
{
    session->setInteractive(true); // its questions come here, and go to a front or are refused
    session->setPollInterval(backgroundPollMs);
    connect(session, &ClusterSession::hostKeyConfirmationNeeded, this,
            [this, session](const QString &, const HostKeyCheck &key) {
                m_questions->hostKeyNeeded(session, key, m_peers);
            });
    connect(session, &ClusterSession::credentialNeeded, this,
            [this, session](const QString &, const CredentialPrompt &prompt) {
                m_questions->credentialNeeded(session, prompt, m_peers);
            });
    connect(session, &ClusterSession::stateChanged, this,
            [this](const QString &cluster, ConnectionState state, const QString &detail) {
                if (state == ConnectionState::Connected)
                    m_questions->clearNeedsYou(cluster);
                broadcast(agent::StateEvent{cluster, state, detail, m_questions->needsYou(cluster)});
            });
    connect(session, &ClusterSession::runUpdated, this,
            [this](const QString &runId) { broadcast(agent::RunEvent{runId}); });
    connect(session, &ClusterSession::metricsArrived, this,
            [this](const QString &runId, int attempt, const QList<MetricEvent> &events) {
                // Stored just now, in this thread: they end where the store's events end.
                const StoreResult<qint64> end = m_store.metricsEnd(runId);
                broadcast(agent::MetricsEvent{runId, attempt, end.value - events.size(), events});
            });
    connect(session, &ClusterSession::seriesReset, this,
            [this](const QString &runId) { broadcast(agent::SeriesResetEvent{runId}); });
    // With each of these, whether the session still has a restart in flight or due: a front waiting for a
    // run's end waits for those too.
    const auto restartsPending = [session] { return session->isRestarting() || session->hasRestartsDue(); };
    connect(session, &ClusterSession::refreshed, this, [this, session, restartsPending](const QString &problem) {
        broadcast(agent::RefreshedEvent{session->name(), problem, restartsPending(), session->nextPollMs()});
    });
    connect(session, &ClusterSession::restartDecided, this,
            [](const QString &runId, bool restart, const QString &reason) {
                qCInfo(lcAgent).noquote()
                    << QStringLiteral("run %1 ended: %2%3")
                           .arg(runId.left(8), restart ? QStringLiteral("restarting, ") : QString(), reason);
            });
    connect(session, &ClusterSession::runEnded, this, [this, session](const QString &runId, const QString &before) {
        const auto run = m_store.run(runId);
        const auto jobs = m_store.jobs(runId);
        if (run.ok() && run.value && jobs.ok()) {
            if (const std::optional<RunNotice> notice = endNotice(before, *run.value, jobs.value))
                tell(*notice, session);
        }
    });
    connect(session, &ClusterSession::restarted, this,
            [this, session, restartsPending](const QString &runId, const QString &jobId, const QString &reason) {
                qCInfo(lcAgent) << "run" << runId.left(8) << "restarted as job" << jobId << reason;
                if (const auto run = m_store.run(runId); run.ok() && run.value)
                    tell(restartNotice(*run.value, jobId, reason), session);
                broadcast(agent::RestartedEvent{session->name(), runId, jobId, reason, restartsPending()});
            });
    connect(session, &ClusterSession::restartFailed, this,
            [this, session, restartsPending](const QString &runId, const QString &error) {
                qCInfo(lcAgent) << "run" << runId.left(8) << "not restarted:" << error;
                if (const auto run = m_store.run(runId); run.ok() && run.value)
                    tell(restartFailedNotice(*run.value, error), session);
                broadcast(agent::RestartFailedEvent{session->name(), runId, error, restartsPending()});
            });
    connect(session, &ClusterSession::runStalled, this, [this, session](const QString &runId, const QString &message) {
        qCInfo(lcAgent).noquote() << QStringLiteral("run %1 %2").arg(runId.left(8), message);
        const auto run = m_store.run(runId);
        const auto jobs = m_store.jobs(runId);
        if (run.ok() && run.value && jobs.ok() && !jobs.value.isEmpty())
            tell(stallNotice(*run.value, jobs.value.at(speakingJob(jobs.value)).jobId, message), session);
    });
    connect(session, &ClusterSession::runWaiting, this, [this, session](const QString &runId, const QString &jobId) {
        const auto run = m_store.run(runId);
        const auto jobs = m_store.jobs(runId);
        if (!run.ok() || !run.value || !jobs.ok())
            return;
        for (const JobRecord &job : jobs.value) {
            if (job.jobId == jobId) {
                const RunNotice notice = waitNotice(*run.value, job, QDateTime::currentDateTimeUtc());
                qCInfo(lcAgent).noquote() << QStringLiteral("run %1 %2").arg(runId.left(8), notice.body());
                tell(notice, session);
            }
        }
    });
    connect(session, &ClusterSession::moveDue, this, [this, session](const QString &runId, const QString &jobId) {
        if (!m_stopping)
            m_mover->consider(session, runId, jobId);
    });
    connect(session, &ClusterSession::leftBehind, m_mover, &RunMover::cancelLeftBehind);
    connect(session, &ClusterSession::submitted, this,
            [this](const LaunchResult &result) { broadcast(agent::SubmittedEvent{result}); });
    connect(session, &ClusterSession::storeFailed, this,
            [this](const QString &error) { broadcast(agent::StoreFailedEvent{error}); });
    connect(session, &ClusterSession::workDirectoryKnown, this, [this, session](const QString &directory) {
        broadcast(agent::WorkDirectoryEvent{session->name(), directory});
    });
    applyPollIntervals();
}

void Agent::tell(const RunNotice &notice, ClusterSession *session)
{
    m_notifier->notify(notice, session->profile().notifyCommand);
    broadcast(agent::NoticeEvent{notice.cluster, notice.runId, notice.event(), notice.title(), notice.body()});
}

template <class Event> void Agent::broadcast(const Event &event)
{
    const AgentMessage message = agent::eventMessage(event);
    for (AgentPeer *peer : std::as_const(m_peers)) {
        if (peer->greeted)
            peer->send(message);
    }
}

void Agent::applyPollIntervals()
{
    // One poll per cluster and interval, at the shortest interval a front asks for.
    int shortest = backgroundPollMs;
    for (const AgentPeer *peer : std::as_const(m_peers)) {
        if (peer->pollMs > 0)
            shortest = std::min(shortest, peer->pollMs);
    }
    if (!m_sessions)
        return;
    for (ClusterSession *session : m_sessions->all()) {
        if (session->pollInterval() != shortest)
            session->setPollInterval(shortest);
    }
}

void Agent::reloadProfilesIfChanged()
{
    const QDateTime modified = QFileInfo(m_profiles.path()).lastModified();
    if (modified == m_profilesRead)
        return;
    QString problem;
    ProfileStore fresh(m_profiles.path());
    if (!fresh.load(&problem)) {
        qCWarning(lcAgent) << "profiles not reloaded:" << problem;
        return;
    }
    m_profiles = fresh;
    m_profilesRead = modified;
    m_sessions->profilesChanged();
}

void Agent::retryTracking()
{
    if (m_stopping)
        return;
    for (const RunRecord &run : m_sessions->unfinishedRuns()) {
        ClusterSession *session = m_sessions->session(run.cluster);
        const ConnectionState state = session->state();
        if ((state == ConnectionState::Failed || state == ConnectionState::Disconnected) &&
            !m_questions->needsYou(run.cluster))
            session->open();
    }
}

void Agent::checkIdle()
{
    if (m_stopping || !stillHome())
        return;
    const auto forwarding = [this] {
        const QList<ClusterSession *> sessions = m_sessions->all();
        return std::any_of(sessions.cbegin(), sessions.cend(),
                           [](const ClusterSession *session) { return !session->forwards().isEmpty(); });
    };
    const bool busy =
        !m_peers.isEmpty() || m_submissionsInFlight > 0 || !m_sessions->unfinishedRuns().isEmpty() || forwarding();
    if (busy) {
        m_idleSince = {};
        return;
    }
    m_idleExitMinutes = agentIdleExitMinutes(); // read again: a change applies to the running agent
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (!m_idleSince.isValid())
        m_idleSince = now;
    if (m_idleSince.secsTo(now) >= qint64(m_idleExitMinutes) * 60)
        stop(tr("idle for %n minute(s)", nullptr, m_idleExitMinutes));
}

void Agent::stop(const QString &why)
{
    if (!m_stopping)
        qCInfo(lcAgent) << "stopping:" << why;
    m_stopping = true;
    finishStopIfQuiet();
}

void Agent::finishStopIfQuiet()
{
    if (!m_stopping || m_submissionsInFlight > 0)
        return;
    m_idleTimer.stop();
    m_retryTimer.stop();
    if (m_listener)
        m_listener->close(); // new fronts start a new agent from here on
    const QList<AgentPeer *> peers = m_peers;
    for (AgentPeer *peer : peers)
        peer->close(tr("the agent stopped"));
    if (m_sessions) {
        for (ClusterSession *session : m_sessions->all())
            session->close();
    }
    m_lock.reset();
    QMetaObject::invokeMethod(this, &Agent::stopped, Qt::QueuedConnection);
}

AgentStatus Agent::status() const
{
    AgentStatus status;
    status.pid = QCoreApplication::applicationPid();
    status.version = version();
    status.executable = QCoreApplication::applicationFilePath();
    status.started = m_started;
    status.dataDirectory = m_paths.dataDirectory;
    status.socketPath = m_paths.socketPath;
    status.idleExitMinutes = m_idleExitMinutes;
    status.submissionsInFlight = m_submissionsInFlight;
    QHash<QString, int> unfinished;
    if (m_sessions) {
        for (const RunRecord &run : m_sessions->unfinishedRuns())
            ++unfinished[run.cluster];
        for (ClusterSession *session : m_sessions->all())
            status.clusters.append({session->name(), session->state(), session->stateDetail(),
                                    unfinished.value(session->name()), m_questions->needsYou(session->name()),
                                    session->pollInterval(), session->connectionLoad(), session->nextPollMs()});
    }
    for (const AgentPeer *peer : std::as_const(m_peers))
        status.clients.append({peer->front, peer->pid, peer->interactive});
    return status;
}

} // namespace torchdeck
