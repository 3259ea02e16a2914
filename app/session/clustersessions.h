#pragma once

#include "session/clustersession.h"

#include <QHash>
#include <QObject>

namespace torchdeck {

class ProfileStore;
class RunStore;

// The agent's sessions, one per cluster, made on first use, all on one run store and one set of profiles.
class ClusterSessions : public QObject {
    Q_OBJECT
public:
    ClusterSessions(RunStore *store, ProfileStore *profiles, QObject *parent = nullptr);

    void setSshConfigFile(const QString &path) { m_sshConfigFile = path; }
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
    // The unfinished runs of the store.
    QList<RunRecord> unfinishedRuns() const;

signals:
    void sessionAdded(torchdeck::ClusterSession *session);

private:
    RunStore *m_store;
    ProfileStore *m_profiles;
    QString m_sshConfigFile;
    QHash<QString, ClusterSession *> m_sessions;
};

} // namespace torchdeck
