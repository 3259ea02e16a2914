#pragma once

#include "remote/sftphandles.h"

#include <QFile>
#include <QString>
#include <deque>

namespace torchdeck::remote {

// Downloads a file over SFTP into a local file, appending from the local file's size (a download resumed where it
// stopped), up to `bytes` (what the file held when it was checksummed; a log that grows meanwhile is read to
// there). Reads are pipelined as OpenSSH's sftp pipelines them, without blocking: step() takes what has arrived,
// at most a slice, so the connection's commands, tails and keep-alives go on between steps, and a server that stops
// answering stalls the download alone. The checksum and the final name are the caller's.
class SftpDownload {
public:
    SftpDownload(sftp_session sftp, QString remotePath, QString localPath, qint64 bytes);
    ~SftpDownload(); // requests still in flight are left to the SFTP session: its owner drops it
    SftpDownload(const SftpDownload &) = delete;
    SftpDownload &operator=(const SftpDownload &) = delete;

    QString open(); // the error in words; empty: ready
    enum class Step { Moved, Waiting, Failed };
    // Takes the answers that arrived (at most sliceBytes; waiting up to waitMs for the first) and asks for more:
    // Moved when bytes were written, Waiting when none had arrived, Failed with `error` set.
    Step step(qint64 sliceBytes, int waitMs, QString &error);
    bool hasRequestsInFlight() const { return !m_inFlight.empty(); }
    // Given up with requests in flight (a server that stopped answering): the remote handle is let go unclosed, as
    // closing waits for an answer; the SFTP session goes with it (the worker drops it).
    void abandon() { (void)m_remote.release(); }
    bool complete() const { return m_done >= m_total; }
    qint64 done() const { return m_done; }
    qint64 total() const { return m_total; }
    qint64 resumedAt() const { return m_resumedAt; }

private:
    struct Request {
        quint32 id = 0;
        qint64 offset = 0;
        quint32 length = 0;
    };
    QString sftpError(const QString &what) const;
    bool fill(qint64 until, QString &error); // begins requests up to offset `until`
    void drain();                            // answers of requests no longer wanted, read and dropped

    sftp_session m_sftp;
    QString m_remotePath;
    QFile m_local;
    SftpFileHandle m_remote;
    qint64 m_total = 0;
    qint64 m_done = 0;
    qint64 m_asked = 0; // requested up to here
    qint64 m_resumedAt = 0;
    std::deque<Request> m_inFlight;
};

} // namespace torchdeck::remote
