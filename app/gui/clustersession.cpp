#include "gui/clustersession.h"

#include <memory>

namespace torchdeck {

namespace {
constexpr int defaultRefreshMs = 3000;
}

ClusterSession::ClusterSession(const ClusterProfile &profile, const remote::ConnectionSettings &settings,
                               RunStore *store, QObject *parent)
    : QObject(parent)
    , m_profile(profile)
    , m_connection(settings)
    , m_store(store)
    , m_tracker(new remote::RunTracker(&m_connection, profile, store, this))
{
    m_connection.setInteractive(true);
    m_timer.setInterval(defaultRefreshMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { refresh(); });
    connect(&m_connection, &remote::Connection::stateChanged, this, &ClusterSession::onStateChanged);
}

ClusterSession::~ClusterSession()
{
    delete m_tracker; // before the connection it uses (children go after the members)
}

void ClusterSession::setProfile(const ClusterProfile &profile)
{
    if (profile == m_profile)
        return;
    m_profile = profile;
    m_trackerStale = true;
    replaceTrackerIfIdle();
}

void ClusterSession::replaceTrackerIfIdle()
{
    // A pass or a restart in flight finishes with the old one: its callbacks need it alive.
    if (!m_trackerStale || m_tracker->isRefreshing() || m_tracker->isRestarting())
        return;
    m_trackerStale = false;
    remote::RunTracker *old = m_tracker;
    m_tracker = new remote::RunTracker(&m_connection, m_profile, m_store, this);
    old->disconnect();
    old->deleteLater(); // we may be inside one of its signals
    emit trackerReplaced(m_tracker);
}

void ClusterSession::open()
{
    if (state() == remote::ConnectionState::Connected || state() == remote::ConnectionState::Connecting ||
        state() == remote::ConnectionState::Reconnecting)
        return;
    m_connection.open();
}

void ClusterSession::whenConnected(QObject *context, const std::function<void()> &then,
                                   const std::function<void(const QString &)> &failed)
{
    if (state() == remote::ConnectionState::Connected)
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

void ClusterSession::refresh(const QStringList &runIds)
{
    replaceTrackerIfIdle();
    if (state() == remote::ConnectionState::Connected)
        m_tracker->refresh(runIds);
}

void ClusterSession::onStateChanged(remote::ConnectionState state, const QString &detail)
{
    if (state == remote::ConnectionState::Connected) {
        m_timer.start();
        refresh();
    } else if (state == remote::ConnectionState::Failed || state == remote::ConnectionState::Disconnected) {
        m_timer.stop();
    }
    emit stateChanged(name(), state, detail);
}

} // namespace torchdeck
