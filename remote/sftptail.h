#pragma once

#include "remote/sftphandles.h"

#include <QByteArray>
#include <QString>
#include <limits>

namespace torchdeck::remote {

// What one poll of a followed file found.
struct TailPoll {
    enum class Kind { Nothing, Data, Reset, Missing, ConnectionLost, Error };
    Kind kind = Kind::Nothing;
    qint64 offset = 0; // Data: offset of the first byte of `bytes`
    QByteArray bytes;
    QString message;  // Reset: why (truncated, replaced); Error: what failed
    int requests = 0; // SFTP requests the poll made (the login node's load)
};

// Follows one remote file by byte offset over SFTP. The offset and a fingerprint of the file's first bytes
// are all the state, so after a reconnect the same object continues exactly where it stopped: no byte is
// delivered twice or skipped. A file that shrinks, or whose first bytes change, was truncated or replaced:
// the tail reports a Reset and starts over at 0.
class SftpTail {
public:
    SftpTail(QString path, qint64 offset)
        : m_path(std::move(path))
        , m_offset(offset)
    {
    }

    // Starts `bytes` before the file's end as the first poll finds it (its start when shorter): a log's latest part.
    static SftpTail lastBytesOf(QString path, qint64 bytes)
    {
        SftpTail tail(std::move(path), 0);
        tail.m_fromEnd = bytes;
        return tail;
    }

    TailPoll poll(sftp_session sftp, qint64 maxBytes);
    qint64 offset() const { return m_offset; }
    const QString &path() const { return m_path; }
    qint64 fromEnd() const { return m_fromEnd; } // not started yet: that many bytes before the end
    // Kept current while the login-node follower reads for it (connectionworkerfollower.cpp), so that polling
    // over SFTP resumes exactly there should the follower stop: `bytes` read at `offset`, or a start over.
    void followed(qint64 offset, const QByteArray &bytes);
    // It starts over at 0, and says why: now `size` bytes long, below its offset; or another file.
    TailPoll truncated(qint64 size);
    TailPoll replaced();

private:
    TailPoll pollCounting(sftp_session sftp, qint64 maxBytes, int *requests);
    TailPoll restart(const QString &why);

    QString m_path;
    qint64 m_offset;
    qint64 m_fromEnd = 0; // until the first stat: start this many bytes before the end
    qint64 m_openedMs = std::numeric_limits<qint64>::min() / 2; // the last open (steady clock): see pollCounting
    QByteArray m_head; // the first bytes seen, to recognise a replaced file of the same or larger size
};

} // namespace torchdeck::remote
