#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTreeWidget;

namespace torchdeck {

class AgentClient;
class PullBar;

// The Files tab of a run: its directory on the cluster (size, time, the attempt that wrote each file, the latest and
// best checkpoint marked), read when the tab is shown or refreshed, and "Download…" of the selected files. A run that
// went on on another cluster has a directory on each: a choice of the cluster then shows.
class RunFilesPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunFilesPanel(AgentClient *agent, QWidget *parent = nullptr);

    // Read now when shown, else when it is; `ranOn`: the clusters the run ran on, its own first.
    void showRun(const QString &cluster, const QString &runId, const QStringList &ranOn = {});
    void refresh();
    // The selected files (`to` empty: the user picks where).
    void downloadSelected(const QString &to = {});
    QTreeWidget *list() const { return m_list; }
    PullBar *pullBar() const { return m_pull; }
    QComboBox *clusterChoice() const { return m_on; }
    QString directory() const; // the directory listed, or why it was not

signals:
    void message(const QString &text);
    void listed(); // the list is the cluster's now

protected:
    void showEvent(QShowEvent *event) override;

private:
    AgentClient *m_agent;
    QTreeWidget *m_list;
    QLabel *m_directory;
    QPushButton *m_download;
    QComboBox *m_on;
    PullBar *m_pull;
    QString m_cluster; // the one shown
    QString m_runCluster;
    QStringList m_ranOn;
    QString m_runId;
    bool m_stale = true;
    quint64 m_generation = 0; // an answer for an earlier run is dropped
};

} // namespace torchdeck
