#include "session/clustersession.h"

#include "core/jobs/runlayout.h"
#include "core/remotepath.h"
#include "core/runs/restartdecision.h"
#include "core/scheduler/jobstate.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "remote/runtracker.h"
#include "remote/trainerbundle.h"
#include "session/runaction.h"
#include "session/submission.h"

namespace torchdeck {

namespace {
constexpr int defaultPollMs = 3000;
}

ClusterSession::ClusterSession(const ClusterProfile &profile, const remote::ConnectionSettings &settings,
                               RunStore *store, QObject *parent)
    : QObject(parent)
    , m_profile(profile)
    , m_connection(settings)
    , m_store(store)
    , m_series(store)
{
    qRegisterMetaType<LaunchResult>();
    makeTracker();
    m_timer.setInterval(defaultPollMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { refresh(); });
    connect(&m_connection, &remote::Connection::stateChanged, this, &ClusterSession::onStateChanged);
}

ClusterSession::~ClusterSession()
{
    delete m_tracker; // before the connection it uses (children go after the members)
}

void ClusterSession::makeTracker()
{
    m_tracker = new remote::RunTracker(&m_connection, m_profile, m_store, &m_series, this);
    m_tracker->setAutoRestart(true);
    connect(m_tracker, &remote::RunTracker::runUpdated, this, &ClusterSession::runUpdated);
    connect(m_tracker, &remote::RunTracker::metricsArrived, this, &ClusterSession::metricsArrived);
    connect(m_tracker, &remote::RunTracker::seriesReset, this, &ClusterSession::seriesReset);
    connect(m_tracker, &remote::RunTracker::refreshed, this, [this](const QString &problem) {
        emit refreshed(problem);
        replaceTrackerIfIdle();
    });
    connect(m_tracker, &remote::RunTracker::restarted, this, &ClusterSession::restarted);
    connect(m_tracker, &remote::RunTracker::restartFailed, this, &ClusterSession::restartFailed);
    connect(m_tracker, &remote::RunTracker::failed, this, &ClusterSession::storeFailed);
}

void ClusterSession::setProfile(const ClusterProfile &profile)
{
    if (profile == m_profile)
        return;
    const bool otherWorkDirectory = profile.workDirectory != m_profile.workDirectory;
    m_profile = profile;
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
    if (!m_trackerStale || m_tracker->isRefreshing() || m_tracker->isRestarting())
        return;
    m_trackerStale = false;
    remote::RunTracker *old = m_tracker;
    old->disconnect();
    old->deleteLater(); // we may be inside one of its signals
    makeTracker();
}

bool ClusterSession::isRefreshing() const
{
    return m_tracker->isRefreshing();
}

bool ClusterSession::isRestarting() const
{
    return m_tracker->isRestarting();
}

bool ClusterSession::hasRestartsDue() const
{
    return m_tracker->hasRestartsDue();
}

void ClusterSession::open()
{
    if (state() == remote::ConnectionState::Connected || state() == remote::ConnectionState::Connecting ||
        state() == remote::ConnectionState::Reconnecting)
        return;
    m_connection.open();
}

void ClusterSession::close()
{
    m_timer.stop();
    m_connection.close();
}

void ClusterSession::whenConnected(QObject *context, const std::function<void()> &then,
                                   const std::function<void(const QString &)> &failed)
{
    if (isConnected())
        return then();
    // One answer only: the first of connected or failed, then the connection is dropped.
    auto link = std::make_shared<QMetaObject::Connection>();
    *link = connect(&m_connection, &remote::Connection::stateChanged, context,
                    [link, then, failed](remote::ConnectionState state, const QString &detail) {
                        if (state == remote::ConnectionState::Connected) {
                            disconnect(*link);
                            then();
                        } else if (state == remote::ConnectionState::Failed ||
                                   state == remote::ConnectionState::Disconnected) {
                            disconnect(*link);
                            failed(detail);
                        }
                    });
    open();
}

SubmissionScript ClusterSession::previewSubmission(const LaunchRequest &request) const
{
    const QString work = m_workDirectory.isEmpty() ? kUnknownWorkDirectory : m_workDirectory;
    // Where RunLauncher's deployment puts the bundled trainer, unless the profile names a prebuilt one.
    const QString trainer = !request.profile.trainerBinary.isEmpty()
                                ? request.profile.trainerBinary
                                : deployedTrainerBinary(work, remote::TrainerBundle::embedded().hash);
    return renderSubmission(request, work, trainer);
}

void ClusterSession::resolveWorkDirectory()
{
    if (m_resolving)
        return;
    m_resolving = true;
    remote::RemoteCommand *command = m_connection.run(workDirectoryCommand(m_profile.workDirectory));
    const QString asked = m_profile.workDirectory;
    connect(command, &remote::RemoteCommand::failed, this, [this](const QString &) { m_resolving = false; });
    connect(command, &remote::RemoteCommand::finished, this, [this, asked](const remote::ExecResult &result) {
        m_resolving = false;
        const QString directory = QString::fromUtf8(result.out.trimmed());
        if (asked != m_profile.workDirectory)
            return resolveWorkDirectory(); // the profile changed meanwhile
        if (result.exitCode != 0 || !directory.startsWith(u'/'))
            return; // a submission says what is wrong with it
        m_workDirectory = directory;
        emit workDirectoryKnown(directory);
    });
}

void ClusterSession::setPolling(bool enabled)
{
    m_polling = enabled;
    if (!enabled)
        m_timer.stop();
    else if (isConnected() && !m_timer.isActive()) {
        m_timer.start();
        refresh();
    }
}

void ClusterSession::refresh(const QStringList &runIds)
{
    replaceTrackerIfIdle();
    if (isConnected())
        m_tracker->refresh(runIds);
}

void ClusterSession::onStateChanged(remote::ConnectionState state, const QString &detail)
{
    if (state == remote::ConnectionState::Connected) {
        if (m_workDirectory.isEmpty())
            resolveWorkDirectory();
        if (m_polling) {
            m_timer.start();
            refresh();
        }
    } else if (state == remote::ConnectionState::Failed || state == remote::ConnectionState::Disconnected) {
        m_timer.stop();
    }
    emit stateChanged(name(), state, detail);
}

Submission *ClusterSession::submit(const LaunchRequest &request, int chain)
{
    auto *submission = new Submission(this, request, chain);
    connect(submission, &Submission::finished, this, [this](const LaunchResult &result) { refresh({result.runId}); });
    return submission;
}

Submission *ClusterSession::resume(const QString &runId, const QString &from, const QString &epochs, QString *error)
{
    const auto run = m_store->run(runId);
    if (!run.ok() || !run.value) {
        *error = run.ok() ? tr("no run %1").arg(runId.left(8)) : run.error;
        return nullptr;
    }
    const auto request =
        resumeRequest(*m_store, m_profile, *run.value, from.isEmpty() ? QStringLiteral("auto") : from, epochs, error);
    return request ? submit(*request) : nullptr;
}

RunAction *ClusterSession::cancel(const QStringList &runIds)
{
    QStringList jobIds;
    QString localState;
    for (const QString &runId : runIds) {
        const auto jobs = m_store->jobs(runId);
        for (const JobRecord &job : jobs.value) {
            localState = localStateDirectoryOf(job.stdoutPath);
            if (!isFinal(jobStateFromName(job.state)) && !job.jobId.isEmpty())
                jobIds.prepend(job.jobId); // the newest first: a cancelled attempt would start the next
        }
    }
    return new RunAction(this, SchedulerAction::Cancel, runIds, jobIds, m_profile.commands(localState));
}

RunAction *ClusterSession::requeue(const QString &runId)
{
    const auto jobs = m_store->jobs(runId);
    QStringList running;
    if (jobs.ok() && !jobs.value.isEmpty()) {
        const JobRecord &job = jobs.value.at(speakingJob(jobs.value));
        if (!isFinal(jobStateFromName(job.state)))
            running.append(job.jobId);
    }
    return new RunAction(this, SchedulerAction::Requeue, {runId}, running, m_profile.commands());
}

StoreStatus ClusterSession::setAutoRestart(const QString &runId, bool enabled)
{
    const StoreStatus saved = m_store->setAutoRestart(runId, enabled);
    if (!saved.ok())
        return saved;
    if (enabled && isConnected())
        m_tracker->reconsider(runId); // a job that stopped to be requeued while it was off goes on now
    emit runUpdated(runId);
    return saved;
}

} // namespace torchdeck
