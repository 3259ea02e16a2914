#pragma once

#include "core/connectionquestions.h"
#include "remote/callqueue.h"
#include "remote/connectionstate.h"
#include "remote/remoteoperations.h"
#include "remote/sftptail.h"
#include "remote/sshsession.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <atomic>
#include <memory>
#include <optional>

namespace torchdeck::remote {

class ConnectionWorker;
struct PendingAnswer;

// One cluster connection for the fronts: lives in the caller's thread, runs libssh in a worker thread of
// its own, and never blocks the caller. Host-key and credential questions arrive as signals when the front
// said it is interactive (setInteractive); otherwise they are refused at once with a clear error, so
// non-interactive use never hangs.
class Connection : public QObject {
    Q_OBJECT
public:
    explicit Connection(ConnectionSettings settings, QObject *parent = nullptr);
    ~Connection() override;

    void setInteractive(bool interactive) { *m_interactive = interactive; }
    void open();
    void close();
    ConnectionState state() const { return m_state; }
    QString host() const { return m_settings.host; }

    // Fails (interrupted) if it runs past deadlineMs; 0: no deadline.
    RemoteCommand *run(const QString &command, int deadlineMs = kDefaultCommandDeadlineMs);
    RemoteTail *tail(const QString &path, qint64 offset = 0, std::optional<TailPace> pace = std::nullopt);
    // From lastBytes before the file's end as it is when the tail starts (a log's latest part); data()'s first
    // bytes may begin inside a line.
    RemoteTail *tailEnd(const QString &path, qint64 lastBytes);
    // Reads from offset to the file's end as it is now, once, over the SFTP channel (no command on the server):
    // data() in order, then ended() (also for a missing file, or one now shorter than offset, as `tail -c +N`
    // would: nothing). failed() when not connected or the connection breaks, as a command would.
    RemoteTail *readFrom(const QString &path, qint64 offset);
    // host is resolved on the server (a node's address as the scheduler gives it).
    RemoteTunnel *tunnel(const QString &host, int port);
    // `command` on a pseudo-terminal of cols x rows: an interactive shell's stream (RemoteTunnel::resize, exited).
    RemoteTunnel *terminal(const QString &command, int cols, int rows,
                           const QString &term = QStringLiteral("xterm-256color"));
    RemoteUpload *upload(const QString &localPath, const QString &remotePath, int mode = 0644);
    // Uploads bytes held in memory (a job script, an embedded file) through a temporary local file.
    RemoteUpload *uploadData(const QByteArray &data, const QString &remotePath, int mode = 0644);

    // `bytes` of remotePath appended to localPath from its size: a download stopped or broken is resumed by asking
    // again. Checking what arrived, and its final name, are the caller's.
    RemoteDownload *download(const QString &remotePath, const QString &localPath, qint64 bytes);

    // Answers to hostKeyConfirmationNeeded / credentialNeeded (nullopt: cancelled).
    void answerHostKey(bool trust);
    void answerCredential(std::optional<QString> answer);

    // What the last state change said: why it failed, or what it is trying.
    QString lastDetail() const { return m_lastDetail; }
    // What this connection asked of the server so far; a scheduler client counts its polls in.
    ConnectionLoad load() const;
    void countSchedulerQuery() { ++m_load.schedulerQueries; }
    // The login-node follower (remote/follower/): the command that runs it on the server, and what it is
    // ("compiled", "shell"); empty: files are followed over SFTP. Kept across reconnects.
    void setFollower(const QString &command, const QString &form);

signals:
    void stateChanged(torchdeck::ConnectionState state, const QString &detail);
    void hostKeyConfirmationNeeded(const torchdeck::HostKeyCheck &key);
    void credentialNeeded(const torchdeck::CredentialPrompt &prompt);

private:
    friend class RemoteCommand;
    friend class RemoteTail;
    friend class RemoteTunnel;
    void stopCommand(quint64 id);
    RemoteTail *startTail(const SftpTail &tail, TailPace pace, bool once = false);
    void stopTail(quint64 id);
    void setTailPace(quint64 id, TailPace pace);
    void writeTunnel(quint64 id, const QByteArray &data);
    void stopTunnel(quint64 id);
    void resizeTerminal(quint64 id, int cols, int rows);

    ConnectionSettings m_settings;
    ConnectionState m_state = ConnectionState::Disconnected;
    QString m_lastDetail;
    std::shared_ptr<std::atomic<bool>> m_interactive = std::make_shared<std::atomic<bool>>(false);
    ConnectionLoad m_load; // but SFTP requests:
    std::shared_ptr<std::atomic<qint64>> m_sftpRequests = std::make_shared<std::atomic<qint64>>(0); // the worker's
    quint64 m_nextId = 1;
    QThread *m_thread = new QThread;    // destroying waits for it 250 ms at most; else it deletes itself later
    ConnectionWorker *m_worker;         // lives in m_thread
    CallQueue *m_inbox = new CallQueue; // the worker's results, run in this thread
    CallQueue::Sender m_toWorker;       // calls run in the worker's thread
    QHash<quint64, QPointer<RemoteCommand>> m_commands;
    QHash<quint64, QPointer<RemoteTail>> m_tails;
    QHash<quint64, QPointer<RemoteTransfer>> m_transfers; // uploads and downloads
    QHash<quint64, QPointer<RemoteTunnel>> m_tunnels;
    std::shared_ptr<PendingAnswer> m_hostKeyAnswer;
    std::shared_ptr<PendingAnswer> m_credentialAnswer;
};

} // namespace torchdeck::remote
