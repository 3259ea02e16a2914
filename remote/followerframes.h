#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace torchdeck::remote {

// What the login-node follower (remote/follower/torchdeck-follow.c, which says its protocol) sends, cut into frames.
struct FollowerFrame {
    enum class Kind { Ready, Data, Truncated, Replaced, Ended, Failed, Heartbeat };
    Kind kind = Kind::Heartbeat;
    quint64 id = 0;
    qint64 offset = 0; // Data: where its bytes start; Truncated: the size it had (the offset read to)
    qint64 size = 0;   // Truncated: the size it has now
    QByteArray bytes;  // Data
    int error = 0;     // Failed: errno
    qint64 looks = 0;  // Heartbeat: looks at files so far
    qint64 sent = 0;   // Heartbeat: bytes sent so far
    int version = 0;   // Ready
};

// Cuts the follower's byte stream into frames. A line it cannot read (another version's, garbage) fails it: the
// stream cannot be trusted after it, and the follower is then given up for SFTP.
class FollowerFrames {
public:
    void append(const QByteArray &bytes) { m_buffer.append(bytes); }
    std::optional<FollowerFrame> next(); // none: not a whole frame yet, or failed()
    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }

private:
    QByteArray m_buffer;
    QString m_error;
};

// The commands it takes.
QByteArray followerAdd(quint64 id, qint64 offset, qint64 fromEnd, bool once, int growingMs, int quietMs,
                       const QString &path);
QByteArray followerPace(quint64 id, int growingMs, int quietMs);
QByteArray followerDrop(quint64 id);

} // namespace torchdeck::remote
