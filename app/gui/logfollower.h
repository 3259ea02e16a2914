#pragma once

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace torchdeck {

class AgentClient;

// The end of a remote log, read through the agent's session of the cluster: every few seconds while it is shown
// and its job runs, once when it is shown with stale text (a log of an ended job is read once, a hidden one not at
// all). One read at a time; a result for a file that is no longer followed is dropped.
class LogFollower : public QObject {
    Q_OBJECT
public:
    explicit LogFollower(QObject *parent = nullptr);

    // Null agent or empty path: stop. `growing`: its job still runs.
    void follow(AgentClient *agent, const QString &cluster, const QString &path, bool growing);
    void setLines(int lines) { m_lines = lines; }
    void setInterval(int ms) { m_timer.setInterval(ms); }
    void setActive(bool active); // shown (its tab, the window on screen) and followed
    void readNow();
    QString path() const { return m_path; }
    bool isPolling() const { return m_timer.isActive(); }

signals:
    void text(const QString &tail);
    void failed(const QString &error);

private:
    void apply();

    QPointer<AgentClient> m_agent;
    QString m_cluster;
    QString m_path;
    int m_lines = 500;
    bool m_reading = false;
    bool m_active = false;
    bool m_growing = false;
    bool m_stale = true; // the text shown is not the file's end as last known
    quint64 m_generation = 0;
    QTimer m_timer;
};

} // namespace torchdeck
