#pragma once

#include "remote/connectionstate.h"
#include "remote/sshsession.h"

#include <QObject>
#include <atomic>
#include <memory>

namespace torchdeck::remote {

class Connection;

// A command running on the cluster. Created by Connection::run(); deletes itself after finished/failed.
class RemoteCommand : public QObject {
    Q_OBJECT
public:
    void stop();
    // After failed(): the command was running when the connection broke, so it may have done its work.
    bool wasInterrupted() const { return m_interrupted; }

signals:
    void output(const QByteArray &data, bool isStderr);
    void finished(const torchdeck::remote::ExecResult &result); // ran to the end (any exit code)
    void failed(const QString &error);                          // could not run, or the connection broke

private:
    friend class Connection;
    RemoteCommand(Connection *connection, quint64 id);
    Connection *m_connection;
    quint64 m_id;
    bool m_interrupted = false;
};

// A remote file followed by byte offset. data() carries bytes starting at `offset`, in order, each byte
// once, across reconnects; reset() means the file was truncated or replaced and delivery restarts at 0.
class RemoteTail : public QObject {
    Q_OBJECT
public:
    void stop();
    void setPace(TailPace pace);

signals:
    void data(qint64 offset, const QByteArray &bytes);
    void reset(const QString &reason);
    void failed(const QString &error);
    void ended(); // a read (Connection::readFrom) reached the file's end; it deletes itself

private:
    friend class Connection;
    RemoteTail(Connection *connection, quint64 id);
    Connection *m_connection;
    quint64 m_id;
};

// A TCP stream opened by the server to a host and port it reaches (a job's node), or a command on a pseudo-terminal
// (Connection::terminal: an interactive shell; exited() with its status before closed()): bytes both ways until either
// end closes. closed() comes once (an error in words, empty when the far end closed), also when the connection
// is lost: a stream cannot be resumed, so the one who forwards opens a new tunnel after the reconnect. Deletes
// itself after closed() or stop().
class RemoteTunnel : public QObject {
    Q_OBJECT
public:
    void write(const QByteArray &data);
    void stop();
    void resize(int cols, int rows); // a terminal's window changed

signals:
    void opened();
    void data(const QByteArray &bytes);
    void closed(const QString &error);
    void exited(int exitStatus); // a terminal's command ended (-1: no status said)

private:
    friend class Connection;
    RemoteTunnel(Connection *connection, quint64 id);
    Connection *m_connection;
    quint64 m_id;
};

// A file's transfer: an upload (atomic: written under a temporary name, then renamed) or a download
// (remote/sftpdownload.h: appended to the local file from its size). Deletes itself when done.
class RemoteTransfer : public QObject {
    Q_OBJECT
public:
    void stop() { *m_cancelled = true; }

signals:
    void progress(qint64 done, qint64 total);
    void finished(qint64 bytes);
    void failed(const QString &error);

private:
    friend class Connection;
    explicit RemoteTransfer(QObject *connection)
        : QObject(connection)
    {
    }
    std::shared_ptr<std::atomic<bool>> m_cancelled = std::make_shared<std::atomic<bool>>(false);
};
using RemoteUpload = RemoteTransfer;
using RemoteDownload = RemoteTransfer;

} // namespace torchdeck::remote
