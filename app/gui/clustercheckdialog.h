#pragma once

#include "core/clustercheckitem.h"

#include <QDialog>
#include <QPointer>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace torchdeck {

class AgentClient;

// "Check cluster": the agent connects the cluster when needed, then checks it with the cluster's profile; each
// item shows as it is checked (pass or fail, and what the cluster answered).
class ClusterCheckDialog : public QDialog {
    Q_OBJECT
public:
    ClusterCheckDialog(AgentClient *agent, const QString &cluster, QWidget *parent = nullptr);

    void start(); // again after the previous check finished: a fresh list
    bool isRunning() const { return m_running; }
    QList<CheckItem> items() const { return m_items; }
    QString statusText() const;
    QTreeWidget *list() const { return m_list; }

signals:
    void checked(const QList<torchdeck::CheckItem> &items); // all items, when the check ended
    void failed(const QString &error);

private:
    void run();
    void addItem(const CheckItem &item);
    void done(const QString &status);

    QPointer<AgentClient> m_agent;
    QString m_cluster;
    QList<CheckItem> m_items;
    bool m_running = false;
    QLabel *m_status;
    QTreeWidget *m_list;
    QPushButton *m_again;
};

} // namespace torchdeck
