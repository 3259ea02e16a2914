#pragma once

#include "core/profiles/profilestore.h"
#include "core/store/runstore.h"

#include <QMainWindow>

class QLineEdit;
class QListView;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace torchdeck {

class ClusterListModel;
class ClusterSession;
class ClusterSessions;
class NewJobDialog;
class RunListModel;
class RunView;

// The desktop dashboard: clusters with their connection state, the runs of the store (filterable, live),
// and the selected run's view. Connections and refreshes run in the background; nothing here waits on I/O.
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
    RunListModel *runModel() const { return m_runs; }
    RunView *runView() const { return m_runView; }
    QLineEdit *filterBox() const { return m_filter; }

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildActions();
    void sessionAdded(ClusterSession *session);
    void updateRunRow(const QString &runId);
    QString selectedCluster() const;
    void restoreState();

    RunStore m_store;
    ProfileStore m_profiles;
    ClusterSessions *m_sessions;
    ClusterListModel *m_clusters;
    RunListModel *m_runs;
    QSortFilterProxyModel *m_filtered;
    QListView *m_clusterView;
    QTableView *m_runTable;
    QLineEdit *m_filter;
    QSplitter *m_mainSplitter;
    QSplitter *m_runSplitter;
    RunView *m_runView;
};

// $TORCHDECK_DATA_DIR/runs.sqlite, else the store's default (the same store as the terminal front).
QString guiRunStorePath();

} // namespace torchdeck
