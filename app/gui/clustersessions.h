#pragma once

#include "core/profiles/profilestore.h"
#include "gui/clustersession.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QWidget>

namespace torchdeck {

class KeychainSecrets;
class RunStore;

// The sessions of this window, one per cluster, made on first use. Questions of the connections
// (host key, passwords, 2FA) are asked in dialogs over `dialogParent`.
class ClusterSessions : public QObject {
    Q_OBJECT
public:
    ClusterSessions(RunStore *store, ProfileStore *profiles, QObject *parent = nullptr);

    void setDialogParent(QWidget *parent) { m_dialogParent = parent; }
    void setSshConfigFile(const QString &path) { m_sshConfigFile = path; }
    ClusterSession *session(const QString &cluster); // made (not opened) when new
    ClusterSession *existing(const QString &cluster) const { return m_sessions.value(cluster); }
    QList<ClusterSession *> all() const { return m_sessions.values(); }
    RunStore *store() const { return m_store; }
    ProfileStore *profiles() const { return m_profiles; }
    KeychainSecrets *secrets() const { return m_secrets; }

signals:
    void sessionAdded(torchdeck::ClusterSession *session);

private:
    RunStore *m_store;
    ProfileStore *m_profiles;
    QString m_sshConfigFile;
    KeychainSecrets *m_secrets;
    QPointer<QWidget> m_dialogParent;
    QHash<QString, ClusterSession *> m_sessions;
};

} // namespace torchdeck
