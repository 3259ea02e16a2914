#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace torchdeck {

class AgentClient;
class PullBar;

// The Files tab of a run: its directory on the cluster (size, time, the attempt that wrote each file, the latest and
// best checkpoint marked), read when the tab is shown or refreshed, and "Download…" of the selected files.
class RunFilesPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunFilesPanel(AgentClient *agent, QWidget *parent = nullptr);

    void showRun(const QString &cluster, const QString &runId); // read now when shown, else when it is
    void refresh();
    // The selected files (`to` empty: the user picks where).
    void downloadSelected(const QString &to = {});
    QTreeWidget *list() const { return m_list; }
    PullBar *pullBar() const { return m_pull; }

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
    PullBar *m_pull;
    QString m_cluster;
    QString m_runId;
    bool m_stale = true;
    quint64 m_generation = 0; // an answer for an earlier run is dropped
};

} // namespace torchdeck
