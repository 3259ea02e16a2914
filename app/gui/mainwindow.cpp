#include "gui/mainwindow.h"

#include "core/sshconfigparser.h"

#include <QListView>
#include <QStatusBar>
#include <QStringListModel>

namespace torchdeck {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_clusters(new QStringListModel(this))
    , m_clusterView(new QListView(this))
{
    setWindowTitle(QStringLiteral("torchdeck"));
    m_clusterView->setModel(m_clusters);
    m_clusterView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    setCentralWidget(m_clusterView);
    resize(900, 600);
    reloadClusters();
}

void MainWindow::reloadClusters()
{
    const SshConfig config = readUserSshConfig();
    m_clusters->setStringList(config.hostAliases());
    statusBar()->showMessage(tr("%n cluster(s) from %1", nullptr, int(config.hostAliases().size()))
                                 .arg(userSshConfigPath()));
}

} // namespace torchdeck
