#pragma once

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace torchdeck {

class AgentClient;

// The end of a remote log, read every few seconds through the agent's session of the cluster. One read at a
// time; a result for a file that is no longer followed is dropped.
class LogFollower : public QObject {
    Q_OBJECT
public:
    explicit LogFollower(QObject *parent = nullptr);

    // Null agent or empty path: stop.
    void follow(AgentClient *agent, const QString &cluster, const QString &path);
    void setLines(int lines) { m_lines = lines; }
    void setInterval(int ms) { m_timer.setInterval(ms); }
    void setActive(bool active); // the view is hidden: stop reading
    void readNow();
    QString path() const { return m_path; }

signals:
    void text(const QString &tail);
    void failed(const QString &error);

private:
    QPointer<AgentClient> m_agent;
    QString m_cluster;
    QString m_path;
    int m_lines = 500;
    bool m_reading = false;
    quint64 m_generation = 0;
    QTimer m_timer;
};

} // namespace torchdeck
