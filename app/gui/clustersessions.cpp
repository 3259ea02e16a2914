#include "gui/clustersessions.h"

#include "core/sshconfigparser.h"
#include "gui/connectionprompts.h"
#include "gui/keychainsecrets.h"

namespace torchdeck {

ClusterSessions::ClusterSessions(RunStore *store, ProfileStore *profiles, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_profiles(profiles)
    , m_sshConfigFile(userSshConfigPath())
    , m_secrets(new KeychainSecrets(this))
{
}

ClusterSession *ClusterSessions::session(const QString &cluster)
{
    if (ClusterSession *existing = m_sessions.value(cluster))
        return existing;
    remote::ConnectionSettings settings;
    settings.host = cluster;
    settings.sshConfigFile = m_sshConfigFile;
    auto *session = new ClusterSession(m_profiles->profile(cluster), settings, m_store, this);
    answerWithDialogs(session->connection(), m_dialogParent, m_secrets);
    m_sessions.insert(cluster, session);
    emit sessionAdded(session);
    return session;
}

} // namespace torchdeck
