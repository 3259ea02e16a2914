#pragma once

#include "remote/clustercheck.h"

#include <QDialog>
#include <QPointer>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace torchdeck {

class ClusterSession;

// "Check cluster": connects the cluster's session when needed, then runs remote::ClusterCheck with the
// cluster's profile and shows each item as it is checked (pass or fail, and what the cluster answered).
class ClusterCheckDialog : public QDialog {
    Q_OBJECT
public:
    explicit ClusterCheckDialog(ClusterSession *session, QWidget *parent = nullptr);

    void start(); // again after the previous check finished: a fresh list
    bool isRunning() const { return m_running; }
    QList<remote::CheckItem> items() const { return m_items; }
    QString statusText() const;
    QTreeWidget *list() const { return m_list; }

signals:
    void checked(const QList<torchdeck::remote::CheckItem> &items); // all items, when the check ended
    void failed(const QString &error);

private:
    void run();
    void addItem(const remote::CheckItem &item);
    void done(const QString &status);

    QPointer<ClusterSession> m_session;
    QList<remote::CheckItem> m_items;
    bool m_running = false;
    QLabel *m_status;
    QTreeWidget *m_list;
    QPushButton *m_again;
};

} // namespace torchdeck
