#pragma once

#include "core/profiles/profilestore.h"
#include "core/store/runstore.h"

#include <QMainWindow>
#include <QPointer>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QTreeView;

namespace torchdeck {

class AgentClient;
class ClusterListModel;
class ClusterPane;
class KeychainSecrets;
class NewJobDialog;
class RunTreeModel;
class RunView;
class SweepsWindow;

// The desktop dashboard: clusters with their connection state, the runs of the store by cluster (filterable,
// live, several can be cancelled at once), and the selected run's view. A client of the agent, which holds the
// connections, polls and restarts runs with or without the window; nothing here waits on I/O.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    void reloadClusters();
    void reloadRuns();
    void connectCluster(const QString &cluster);
    void refreshAll(); // F5: every connected cluster, and the store
    void selectRun(const QString &runId);
    void selectRuns(const QStringList &runIds); // together: the run view overlays the others on the first
    NewJobDialog *openNewJob();
    SweepsWindow *openSweeps(const QString &sweepId = {}); // empty: the newest

    AgentClient *agent() const { return m_agent; }
    ClusterListModel *clusterModel() const { return m_clusters; }
    RunTreeModel *runModel() const { return m_runs; }
    QTreeView *runTree() const { return m_runTree; }
    QStringList selectedRuns() const;
    void cancelSelectedRuns(); // one confirmation for all of them
    RunView *runView() const { return m_runView; }
    QLineEdit *filterBox() const { return m_filter; }
    ClusterPane *clusterPane() const { return m_clusterPane; }

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void buildActions();
    void listenToAgent();
    void openSettings();
    void updateRunRow(const QString &runId);
    QString selectedCluster() const;
    void overlaySelectedRuns();
    void restoreState();

    RunStore m_store;
    ProfileStore m_profiles;
    AgentClient *m_agent;
    int m_windowPollMs; // what the window asks of the agent while it is on screen
    KeychainSecrets *m_secrets;
    QLabel *m_agentLabel;
    QLabel *m_pollLabel; // the agent's next scheduler query
    ClusterListModel *m_clusters;
    RunTreeModel *m_runs;
    QSortFilterProxyModel *m_filtered;
    ClusterPane *m_clusterPane;
    QTreeView *m_runTree;
    QLineEdit *m_filter;
    QSplitter *m_listSplitter;
    QSplitter *m_runSplitter;
    RunView *m_runView;
    QPointer<SweepsWindow> m_sweepsWindow;
};

} // namespace torchdeck
