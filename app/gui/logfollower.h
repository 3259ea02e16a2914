#pragma once

#include "client/logstream.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <optional>

namespace torchdeck {

class AgentClient;

// The end of a remote log, through the agent's session of the cluster: streamed while it is shown and its job
// runs (LogStream: the bytes as they are written, no command per look), read once when it is shown with stale
// text (a log of an ended job is read once, a hidden one not at all). A stream that fails, or waits for the
// cluster's connection, is started again a little later; a read for a file no longer followed is dropped.
class LogFollower : public QObject {
    Q_OBJECT
public:
    explicit LogFollower(QObject *parent = nullptr);

    // Null agent or empty path: stop. `growing`: its job still runs. `kept`: an ended job's log as kept on this machine
    // (core/store/keptlogs.h), shown instead of reading the cluster's.
    void follow(AgentClient *agent, const QString &cluster, const QString &path, bool growing,
                const std::optional<QByteArray> &kept = std::nullopt);
    void setLines(int lines) { m_lines = lines; }
    void setActive(bool active); // shown (its tab, the window on screen) and followed
    void readNow();              // the text now: the stream's, else one read
    QString path() const { return m_path; }
    bool isStreaming() const { return m_streaming; } // it follows the log as it grows (or waits to)

signals:
    void text(const QString &tail);
    void failed(const QString &error);

private:
    void apply();
    void startStream();

    QPointer<AgentClient> m_agent;
    QString m_cluster;
    QString m_path;
    int m_lines = 500;
    bool m_reading = false;
    bool m_active = false;
    bool m_growing = false;
    bool m_streaming = false; // shown, followed and growing
    bool m_stale = true;      // the text shown is not the file's end as last known
    quint64 m_generation = 0;
    LogStream m_stream;
    QTimer m_retry;
    std::optional<QByteArray> m_kept;
};

} // namespace torchdeck
