#pragma once

#include "core/profiles/profilestore.h"
#include "core/store/runstore.h"

#include <QMainWindow>

class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QTreeView;

namespace torchdeck {

class ClusterListModel;
class ClusterPane;
class ClusterSession;
class ClusterSessions;
class KeychainSecrets;
class NewJobDialog;
class RunTreeModel;
class RunView;

// The desktop dashboard: clusters with their connection state, the runs of the store by cluster (filterable,
// live, several can be cancelled at once), and the selected run's view. Connections and refreshes run in the
// background; nothing here waits on I/O.
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
    NewJobDialog *openNewJob();

    ClusterSessions *sessions() const { return m_sessions; }
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

private:
    void buildActions();
    void sessionAdded(ClusterSession *session);
    void updateRunRow(const QString &runId);
    QString selectedCluster() const;
    void overlaySelectedRuns();
    void restoreState();
    // Asks (without blocking) before closing while unfinished runs rely on this window to restart them;
    // true when it may close now.
    bool confirmClose();

    RunStore m_store;
    ProfileStore m_profiles;
    ClusterSessions *m_sessions;
    KeychainSecrets *m_secrets;
    bool m_closeConfirmed = false;
    ClusterListModel *m_clusters;
    RunTreeModel *m_runs;
    QSortFilterProxyModel *m_filtered;
    ClusterPane *m_clusterPane;
    QTreeView *m_runTree;
    QLineEdit *m_filter;
    QSplitter *m_mainSplitter;
    QSplitter *m_runSplitter;
    RunView *m_runView;
};

} // namespace torchdeck
