#pragma once

#include "core/profiles/clusterprofile.h"
#include "remote/connection.h"
#include "remote/runtracker.h"

#include <QObject>
#include <QTimer>
#include <functional>

namespace torchdeck {

class RunStore;

// One connected cluster: its connection, its run tracker and the timer that refreshes it while connected.
// An edited profile replaces the tracker (remote::RunTracker takes its profile once): at once when it is
// idle, else before the next pass; trackerReplaced tells whoever listens to the old one.
class ClusterSession : public QObject {
    Q_OBJECT
public:
    ClusterSession(const ClusterProfile &profile, const remote::ConnectionSettings &settings, RunStore *store,
                   QObject *parent = nullptr);
    ~ClusterSession() override;

    QString name() const { return m_profile.name; }
    const ClusterProfile &profile() const { return m_profile; }
    void setProfile(const ClusterProfile &profile);
    remote::Connection *connection() { return &m_connection; }
    remote::RunTracker *tracker() { return m_tracker; }
    remote::ConnectionState state() const { return m_connection.state(); }

    void open(); // no-op while connected or connecting
    // Calls `then` once connected (at once if already), or `failed` with the reason. Never blocks.
    void whenConnected(QObject *context, const std::function<void()> &then,
                       const std::function<void(const QString &)> &failed);
    void refresh(const QStringList &runIds = {});
    void setRefreshInterval(int ms) { m_timer.setInterval(ms); }

signals:
    void stateChanged(const QString &cluster, torchdeck::remote::ConnectionState state, const QString &detail);
    void trackerReplaced(torchdeck::remote::RunTracker *tracker); // the old one is deleted later

private:
    void onStateChanged(remote::ConnectionState state, const QString &detail);
    void replaceTrackerIfIdle();

    ClusterProfile m_profile;
    remote::Connection m_connection;
    RunStore *m_store;
    remote::RunTracker *m_tracker; // a child
    bool m_trackerStale = false;   // made with an earlier profile
    QTimer m_timer;
};

} // namespace torchdeck
