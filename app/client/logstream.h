#pragma once

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace torchdeck {

class AgentClient;
class SessionOperation;

// The latest lines of a remote log as it grows, streamed through the agent (follow_file from the log's last
// bytes, one SFTP stat per look, no command): text() with the last `lines` lines after new bytes arrive (once per
// turn of the event loop). failed() when the follow ends with an error; start() again to retry.
class LogStream : public QObject {
    Q_OBJECT
public:
    explicit LogStream(QObject *parent = nullptr);
    ~LogStream() override;

    void start(AgentClient *agent, const QString &cluster, const QString &path, int lines);
    void stop();
    bool isRunning() const { return !m_follow.isNull(); }
    QString path() const { return m_path; }
    QString latest() const { return QString::fromUtf8(m_latest); }

signals:
    void text(const QString &latest);
    void failed(const QString &error);

private:
    void append(qint64 offset, const QByteArray &bytes);

    QPointer<SessionOperation> m_follow;
    QString m_path;
    int m_lines = 500;
    QByteArray m_latest;    // whole lines and the one being written, at most m_lines of them
    bool m_started = false; // a byte came: the first ones may begin inside a line
    QTimer m_emit;
};

} // namespace torchdeck
