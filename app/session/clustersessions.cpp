#include "session/clustersessions.h"

#include "core/profiles/profilestore.h"
#include "core/scheduler/jobstate.h"
#include "core/sshconfigparser.h"
#include "core/store/runstore.h"

namespace torchdeck {

ClusterSessions::ClusterSessions(RunStore *store, ProfileStore *profiles, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_profiles(profiles)
    , m_sshConfigFile(userSshConfigPath())
{
}

ClusterSession *ClusterSessions::session(const QString &cluster)
{
    if (ClusterSession *existing = m_sessions.value(cluster))
        return existing;
    auto *session = new ClusterSession(m_profiles->profile(cluster), m_sshConfigFile, m_store, this);
    m_sessions.insert(cluster, session);
    // What the session read of the cluster goes to the profile file, merged with what fronts write there.
    connect(session, &ClusterSession::shapeRead, this, [this](const QString &name, const ClusterProfile &shaped) {
        QString problem;
        if (!m_profiles->update(
                name, [&shaped](ClusterProfile &profile) { profile.adoptNewerShape(shaped); }, &problem))
            qWarning().noquote() << "the shape of" << name << "is not kept:" << problem;
    });
    emit sessionAdded(session);
    return session;
}

void ClusterSessions::profilesChanged()
{
    for (ClusterSession *session : std::as_const(m_sessions))
        session->setProfile(m_profiles->profile(session->name()));
}

QStringList ClusterSessions::resumeTracking()
{
    QStringList clusters;
    const auto runs = m_store->runs();
    for (const RunRecord &run : runs.value) {
        if (!run.hasEnded() && !clusters.contains(run.cluster))
            clusters.append(run.cluster);
    }
    for (const QString &cluster : std::as_const(clusters))
        session(cluster)->open();
    return clusters;
}

QList<RunRecord> ClusterSessions::unfinishedRuns() const
{
    QList<RunRecord> unfinished;
    const auto runs = m_store->runs();
    for (const RunRecord &run : runs.value) {
        if (!run.hasEnded())
            unfinished.append(run);
    }
    return unfinished;
}

} // namespace torchdeck
