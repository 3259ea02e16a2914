#pragma once

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace torchdeck {

namespace remote {
class Connection;
}

// The end of a remote log, read every few seconds with `tail -n` through the cluster's connection. One read
// at a time; a result for a file that is no longer followed is dropped.
class LogFollower : public QObject {
    Q_OBJECT
public:
    explicit LogFollower(QObject *parent = nullptr);

    void follow(remote::Connection *connection, const QString &path); // null or empty: stop
    void setLines(int lines) { m_lines = lines; }
    void setInterval(int ms) { m_timer.setInterval(ms); }
    void setActive(bool active); // the view is hidden: stop reading
    void readNow();
    QString path() const { return m_path; }

signals:
    void text(const QString &tail);
    void failed(const QString &error);

private:
    QPointer<remote::Connection> m_connection;
    QString m_path;
    int m_lines = 500;
    bool m_reading = false;
    quint64 m_generation = 0;
    QTimer m_timer;
};

} // namespace torchdeck
