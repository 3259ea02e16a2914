#pragma once

#include <QMainWindow>

class QListView;
class QStringListModel;

namespace torchdeck {

// The desktop dashboard's window. For now it lists the clusters of the user's ssh config;
// the job form, runs and charts come with the dashboard issue.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    void reloadClusters();

private:
    QStringListModel *m_clusters;
    QListView *m_clusterView;
};

} // namespace torchdeck
