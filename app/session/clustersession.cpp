#include "session/clustersession.h"

#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/jobs/runlayout.h"
#include "core/runs/pollschedule.h"
#include "core/store/runstore.h"
#include "remote/followerinstall.h"
#include "session/internal/portforwarder.h"
#include "session/internal/sessioninternals.h"

namespace torchdeck {

namespace {
remote::ConnectionSettings connectionSettings(const QString &host, const QString &sshConfigFile)
{
    remote::ConnectionSettings settings;
    settings.host = host;
    settings.sshConfigFile = sshConfigFile;
    return settings;
}

} // namespace

ClusterSession::ClusterSession(const ClusterProfile &profile, const QString &sshConfigFile, RunStore *store,
                               QObject *parent)
    : QObject(parent)
    , m_profile(profile)
    , m_store(store)
    , m_parts(std::make_unique<Parts>(connectionSettings(profile.name, sshConfigFile)))
    , m_series(store)
{
    qRegisterMetaType<LaunchResult>();
    makeTracker();
    m_schedule.minimumMs = m_profile.minPollSeconds * 1000;
    m_pollMs = m_schedule.intervalMs();
    m_timer.setInterval(m_pollMs);
    applyFollowPaces();
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (m_timer.interval() != m_pollMs)
            m_timer.setInterval(m_pollMs); // after a shortened round
        refresh();
    });
    m_resourceTimer.setInterval(kResourceSampleMs);
    connect(&m_resourceTimer, &QTimer::timeout, this, [this] { sampleResources(m_lookedAt); }); // it ends by itself
    remote::Connection *connection = &m_parts->connection;
    connect(connection, &remote::Connection::stateChanged, this, &ClusterSession::onStateChanged);
    connect(this, &ClusterSession::workDirectoryKnown, this, &ClusterSession::installFollower);
    connect(connection, &remote::Connection::hostKeyConfirmationNeeded, this,
            [this](const HostKeyCheck &key) { emit hostKeyConfirmationNeeded(name(), key); });
    connect(connection, &remote::Connection::credentialNeeded, this,
            [this](const CredentialPrompt &prompt) { emit credentialNeeded(name(), prompt); });
}

ClusterSession::~ClusterSession()
{
    delete m_parts->tracker; // before the connection it uses
    m_parts->tracker = nullptr;
    qDeleteAll(std::exchange(m_forwards, {})); // their tunnels too
}

void ClusterSession::makeTracker()
{
    auto *tracker = new remote::RunTracker(&m_parts->connection, m_profile, m_store, &m_series, this);
    m_parts->tracker = tracker;
    tracker->setAutoRestart(true);
    tracker->setFollowPaces(m_lookedAt, m_pollMs);
    // scripts/bench-remote's reference: today's design before streaming, a command per file and pass.
    tracker->setStreaming(!qEnvironmentVariableIsSet("TORCHDECK_FOLLOW_BY_COMMAND"));
    connect(tracker, &remote::RunTracker::runUpdated, this, &ClusterSession::runUpdated);
    connect(tracker, &remote::RunTracker::metricsArrived, this,
            [this](const QString &runId, int attempt, const QList<MetricEvent> &events) {
                if (std::any_of(events.cbegin(), events.cend(),
                                [](const MetricEvent &e) { return e.kind == MetricEventKind::Stop; }))
                    pollSoon();
                emit metricsArrived(runId, attempt, events);
            });
    connect(tracker, &remote::RunTracker::seriesReset, this, &ClusterSession::seriesReset);
    connect(tracker, &remote::RunTracker::refreshed, this, [this](const QString &problem) {
        m_lastPass = QDateTime::currentDateTimeUtc();
        const remote::RunTracker *passed = m_parts->tracker;
        m_schedule =
            m_schedule.afterPass(passed->lastPassQuiet(), passed->lastPollFailed(), passed->lastPollDurationMs());
        applyPollInterval();
        emit refreshed(problem);
        replaceTrackerIfIdle();
    });
    connect(tracker, &remote::RunTracker::restartDecided, this, &ClusterSession::restartDecided);
    connect(tracker, &remote::RunTracker::runEnded, this, &ClusterSession::runEnded);
    connect(tracker, &remote::RunTracker::restarted, this, &ClusterSession::restarted);
    connect(tracker, &remote::RunTracker::restartFailed, this, &ClusterSession::restartFailed);
    connect(tracker, &remote::RunTracker::runStalled, this, &ClusterSession::runStalled);
    connect(tracker, &remote::RunTracker::runWaiting, this, &ClusterSession::runWaiting);
    connect(tracker, &remote::RunTracker::moveDue, this, &ClusterSession::moveDue);
    connect(tracker, &remote::RunTracker::leftBehind, this, &ClusterSession::leftBehind);
    connect(tracker, &remote::RunTracker::failed, this, &ClusterSession::storeFailed);
}

void ClusterSession::setProfile(const ClusterProfile &profile)
{
    if (profile == m_profile)
        return;
    const bool otherWorkDirectory = profile.workDirectory != m_profile.workDirectory;
    m_profile = profile;
    applyPollInterval(); // its min_poll_seconds
    m_trackerStale = true;
    replaceTrackerIfIdle();
    if (otherWorkDirectory) {
        m_workDirectory.clear();
        if (isConnected())
            resolveWorkDirectory();
    }
}

void ClusterSession::replaceTrackerIfIdle()
{
    // A pass or a restart in flight finishes with the old one: its callbacks need it alive.
    remote::RunTracker *old = m_parts->tracker;
    if (!m_trackerStale || old->isRefreshing() || old->isRestarting())
        return;
    m_trackerStale = false;
    old->disconnect();
    old->deleteLater(); // we may be inside one of its signals
    makeTracker();
}

ConnectionState ClusterSession::state() const
{
    return m_parts->connection.state();
}

QString ClusterSession::stateDetail() const
{
    return m_parts->connection.lastDetail();
}

void ClusterSession::setPollInterval(int ms)
{
    m_schedule.askedMs = ms;
    applyPollInterval();
}

int ClusterSession::nextPollMs() const
{
    return m_timer.isActive() ? std::max(0, m_timer.remainingTime()) : -1;
}

void ClusterSession::applyPollInterval()
{
    m_schedule.minimumMs = m_profile.minPollSeconds * 1000;
    const int ms = m_schedule.intervalMs(); // core/runs/pollschedule.h
    if (ms == m_pollMs)
        return;
    m_pollMs = ms;
    applyFollowPaces();
    if (!m_timer.isActive())
        return m_timer.setInterval(ms);
    // Sooner than the round under way: a shortened round now; later, the timeout takes the new interval up.
    if (const int due = shortenedRoundMs(m_timer.interval(), ms, m_timer.remainingTime()); due >= 0)
        m_timer.start(due);
}

void ClusterSession::pollSoon()
{
    m_schedule = m_schedule.woken();
    applyPollInterval();
    if (!m_timer.isActive())
        return;
    const qint64 sinceLast = m_lastPass.isValid() ? m_lastPass.msecsTo(QDateTime::currentDateTimeUtc()) : -1;
    const int due = pollSoonMs(sinceLast, m_schedule.minimumMs);
    if (due < m_timer.remainingTime())
        m_timer.start(due);
}

void ClusterSession::applyFollowPaces()
{
    m_parts->tracker->setFollowPaces(m_lookedAt, m_pollMs);
}

ConnectionLoad ClusterSession::connectionLoad() const
{
    return m_parts->connection.load();
}

bool ClusterSession::isRefreshing() const
{
    return m_parts->tracker->isRefreshing();
}

bool ClusterSession::isRestarting() const
{
    return m_parts->tracker->isRestarting();
}

bool ClusterSession::hasRestartsDue() const
{
    return m_parts->tracker->hasRestartsDue();
}

void ClusterSession::setInteractive(bool interactive)
{
    m_parts->connection.setInteractive(interactive);
}

void ClusterSession::answerHostKey(bool trust)
{
    m_parts->connection.answerHostKey(trust);
}

void ClusterSession::answerCredential(std::optional<QString> answer)
{
    m_parts->connection.answerCredential(std::move(answer));
}

void ClusterSession::open()
{
    const ConnectionState now = state();
    if (now == ConnectionState::Connected || now == ConnectionState::Connecting || now == ConnectionState::Reconnecting)
        return;
    m_parts->connection.open();
}

void ClusterSession::close()
{
    m_timer.stop();
    m_parts->connection.close();
}

void ClusterSession::whenConnected(QObject *context, const std::function<void()> &then,
                                   const std::function<void(const QString &)> &failed)
{
    if (isConnected())
        return then();
    // One answer only: the first of connected or failed, then the connection is dropped.
    auto link = std::make_shared<QMetaObject::Connection>();
    *link = connect(&m_parts->connection, &remote::Connection::stateChanged, context,
                    [link, then, failed](ConnectionState state, const QString &detail) {
                        if (state == ConnectionState::Connected) {
                            disconnect(*link);
                            then();
                        } else if (state == ConnectionState::Failed || state == ConnectionState::Disconnected) {
                            disconnect(*link);
                            failed(detail);
                        }
                    });
    open();
}

void ClusterSession::runCommand(QObject *context, const QString &command,
                                const std::function<void(int, const QByteArray &, const QByteArray &)> &done,
                                const std::function<void(const QString &)> &failed, int deadlineMs)
{
    whenConnected(
        context,
        [this, context, command, done, failed, deadlineMs] {
            remote::RemoteCommand *running =
                m_parts->connection.run(command, deadlineMs > 0 ? deadlineMs : remote::kDefaultCommandDeadlineMs);
            connect(running, &remote::RemoteCommand::failed, context, failed);
            connect(running, &remote::RemoteCommand::finished, context, [done, failed](const remote::ExecResult &r) {
                if (!r.error.isEmpty())
                    return failed(r.error);
                done(r.exitCode, r.out, r.err);
            });
        },
        failed);
}

void ClusterSession::resolveWorkDirectory()
{
    if (m_resolving)
        return;
    m_resolving = true;
    const QString asked = m_profile.workDirectory;
    runCommand(
        this, workDirectoryCommand(asked),
        [this, asked](int exitCode, const QByteArray &out, const QByteArray &) {
            m_resolving = false;
            const QString directory = QString::fromUtf8(out.trimmed());
            if (asked != m_profile.workDirectory)
                return resolveWorkDirectory(); // the profile changed meanwhile
            if (exitCode != 0 || !directory.startsWith(u'/'))
                return; // a submission says what is wrong with it
            m_workDirectory = directory;
            emit workDirectoryKnown(directory);
        },
        [this](const QString &) { m_resolving = false; });
}

void ClusterSession::installFollower(const QString &directory)
{
    // scripts/bench-remote's other reference: files streamed over SFTP, as before the follower.
    if (qEnvironmentVariableIsSet("TORCHDECK_FOLLOW_OVER_SFTP"))
        return;
    runCommand(
        this, remote::followerInstallCommand(directory),
        [this, directory](int exitCode, const QByteArray &out, const QByteArray &err) {
            const remote::FollowerForm form = remote::followerFormFrom(directory, out);
            if (directory != m_workDirectory)
                return; // the profile changed meanwhile: its directory's follower comes
            if (exitCode != 0 || form.command.isEmpty()) {
                qInfo().noquote() << "no login-node follower on" << name()
                                  << "(files are read over SFTP):" << QString::fromUtf8(err.trimmed());
                return;
            }
            m_parts->connection.setFollower(form.command, form.form);
        },
        [this](const QString &error) {
            qInfo().noquote() << "no login-node follower on" << name() << "for now:" << error;
        });
}

void ClusterSession::refresh(const QStringList &runIds)
{
    replaceTrackerIfIdle();
    if (!isConnected())
        return;
    if (!isRefreshing())
        m_lastPassRuns = runIds;
    m_parts->tracker->setWorkDirectory(m_workDirectory);
    m_parts->tracker->refresh(runIds);
}

void ClusterSession::onStateChanged(ConnectionState state, const QString &detail)
{
    if (state == ConnectionState::Connected) {
        if (m_workDirectory.isEmpty())
            resolveWorkDirectory();
        readShape(this, [](const QString &) {});
        m_timer.start();
        refresh();
    } else if (state == ConnectionState::Failed || state == ConnectionState::Disconnected) {
        m_timer.stop();
    }
    emit stateChanged(name(), state, detail);
}

SessionOperation *ClusterSession::connectOperation()
{
    auto *operation = new SessionOperation(this);
    whenConnected(
        operation, [operation] { operation->finish(); }, [operation](const QString &error) { operation->fail(error); });
    return operation;
}

SessionOperation *ClusterSession::refreshOperation(const QStringList &runIds, int maxAgeMs)
{
    // While the session polls, its passes are the answer: a pass younger than the interval stands, else the next
    // poll is brought forward to now (and the one after it a whole interval later), so the scheduler is asked at
    // most once per interval whoever asks. maxAgeMs 0 asks for a pass now.
    const bool polling = m_timer.isActive() && maxAgeMs > 0;
    const int freshMs = polling ? std::max(maxAgeMs, pollInterval()) : maxAgeMs;
    const bool covered =
        m_lastPassRuns.isEmpty() ||
        std::all_of(runIds.cbegin(), runIds.cend(), [this](const QString &id) { return m_lastPassRuns.contains(id); });
    if (isConnected() && !isRefreshing() && !isRestarting() && m_lastPass.isValid() && covered && maxAgeMs > 0 &&
        m_lastPass.msecsTo(QDateTime::currentDateTimeUtc()) <= freshMs)
        return SessionOperation::alreadyFinishedWith(agent::Refresh::Reply{}, this);
    auto *operation = new SessionOperation(this);
    auto problem = std::make_shared<std::optional<QString>>(); // set when the pass ended
    // After the pass, the restarts it decided on: a command that ends then shows the new job.
    auto settle = [this, operation, problem] {
        if (problem->has_value() && !isRestarting())
            operation->finishWith(agent::Refresh::Reply{**problem});
    };
    connect(this, &ClusterSession::restarted, operation, settle);
    connect(this, &ClusterSession::restartFailed, operation, settle);
    whenConnected(
        operation,
        [this, operation, problem, runIds, settle] {
            connect(this, &ClusterSession::refreshed, operation, [problem, settle](const QString &said) {
                *problem = said;
                settle();
            });
            connect(this, &ClusterSession::storeFailed, operation,
                    [operation](const QString &error) { operation->fail(error); });
            const bool timerRuns = m_timer.isActive();
            refresh(timerRuns ? QStringList() : runIds); // polling: the timer's full pass, brought forward
            if (timerRuns)
                m_timer.start();
        },
        [operation](const QString &error) { operation->fail(error); });
    return operation;
}

SessionOperation *ClusterSession::workDirectoryOperation()
{
    if (!m_workDirectory.isEmpty())
        return SessionOperation::alreadyFinishedWith(agent::WorkDirectory::Reply{m_workDirectory}, this);
    auto *operation = new SessionOperation(this);
    const QString asked = m_profile.workDirectory;
    runCommand(
        operation, workDirectoryCommand(asked),
        [this, operation, asked](int exitCode, const QByteArray &out, const QByteArray &err) {
            const QString directory = QString::fromUtf8(out.trimmed());
            if (exitCode != 0 || !directory.startsWith(u'/'))
                return operation->fail(tr("cannot use the work directory %1 on %2: %3")
                                           .arg(asked, name(), QString::fromUtf8(err.trimmed())));
            if (asked == m_profile.workDirectory && m_workDirectory.isEmpty()) {
                m_workDirectory = directory;
                emit workDirectoryKnown(directory);
            }
            operation->finishWith(agent::WorkDirectory::Reply{directory});
        },
        [operation](const QString &error) { operation->fail(error); });
    return operation;
}

StoreStatus ClusterSession::setAutoRestart(const QString &runId, bool enabled)
{
    StoreStatus saved = m_store->setAutoRestart(runId, enabled);
    if (!saved.ok())
        return saved;
    if (enabled && isConnected())
        m_parts->tracker->reconsider(runId); // a job that stopped to be requeued while it was off goes on now
    emit runUpdated(runId);
    return saved;
}

} // namespace torchdeck
