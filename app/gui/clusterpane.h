#pragma once

#include <QWidget>

class QListView;

namespace torchdeck {

class ClusterCheckDialog;
class ClusterListModel;
class ClusterProfileDialog;
class AgentClient;

// The clusters of the window with their connection state, and what is done to one: connect, add or edit its
// profile, check it. Double-click connects; the context menu and the buttons hold the rest.
class ClusterPane : public QWidget {
    Q_OBJECT
public:
    ClusterPane(ClusterListModel *clusters, AgentClient *agent, QWidget *parent = nullptr);

    QString selectedCluster() const;
    int fittingWidth() const; // as wide as its longest line and its buttons, no wider
    void selectCluster(const QString &name);
    QListView *view() const { return m_view; }

    ClusterProfileDialog *editProfile(const QString &name); // empty: a new profile
    ClusterCheckDialog *checkCluster(const QString &name);  // shown and started

signals:
    void connectRequested(const QString &cluster);
    void profileSaved(const QString &cluster); // the profile store changed on disk
    void message(const QString &text);

private:
    ClusterListModel *m_clusters;
    AgentClient *m_agent;
    QListView *m_view;
};

} // namespace torchdeck
