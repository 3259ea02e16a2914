#pragma once

#include "core/store/runrecord.h"
#include "session/clustersession.h"

#include <QHash>
#include <QObject>
#include <functional>

namespace torchdeck {

class ProfileStore;
class RunStore;

// The sessions of one front (the window, one terminal command), one per cluster, made on first use, all on
// one run store and one set of profiles. The front says how a connection asks its questions (host key,
// passwords, 2FA): dialogs in the window, the terminal in a command, nothing at all without a terminal.
class ClusterSessions : public QObject {
    Q_OBJECT
public:
    ClusterSessions(RunStore *store, ProfileStore *profiles, QObject *parent = nullptr);

    void setSshConfigFile(const QString &path) { m_sshConfigFile = path; }
    // Called on every new session's connection before it opens: where its questions go.
    void setConnectionSetup(std::function<void(remote::Connection *)> setup) { m_setup = std::move(setup); }
    // Whether new sessions poll by themselves once connected (on; a one-shot terminal command turns it off).
    void setPolling(bool enabled) { m_polling = enabled; }
    ClusterSession *session(const QString &cluster); // made (not opened) when new
    ClusterSession *existing(const QString &cluster) const { return m_sessions.value(cluster); }
    QList<ClusterSession *> all() const { return m_sessions.values(); }
    RunStore *store() const { return m_store; }
    ProfileStore *profiles() const { return m_profiles; }
    // The profiles were saved anew: every session takes its cluster's.
    void profilesChanged();

    // Opens the session of every cluster with an unfinished run, so tracking (and restarting) resumes.
    // Returns those clusters.
    QStringList resumeTracking();
    // The unfinished runs that count on this front to restart them when their job stops to be requeued.
    QList<RunRecord> runsRelyingOnRestarts() const;

signals:
    void sessionAdded(torchdeck::ClusterSession *session);

private:
    RunStore *m_store;
    ProfileStore *m_profiles;
    QString m_sshConfigFile;
    std::function<void(remote::Connection *)> m_setup;
    bool m_polling = true;
    QHash<QString, ClusterSession *> m_sessions;
};

// Whether a stored run has not ended (its state is not final).
bool isUnfinishedRun(const RunRecord &run);

} // namespace torchdeck
