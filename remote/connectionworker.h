#pragma once

#include "core/connectionquestions.h"
#include "remote/connectionstate.h"
#include "remote/followerframes.h"
#include "remote/sftpdownload.h"
#include "remote/sftphandles.h"
#include "remote/sftptail.h"
#include "remote/sshsession.h"

#include <QObject>
#include <QTimer>
#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>

namespace torchdeck::remote {

// Owns one SSH connection and lives in its own thread: libssh is never touched from another thread.
// Commands and tails are multiplexed over the one session; the Connection facade talks to it through a
// CallQueue each way (its signals are handled in this thread and posted on). Commands beyond
// maxRunningCommands wait for a channel. On a lost connection it fails the running commands (they may have had
// effects: never re-run them blindly), closes the tunnels (their TCP streams cannot be resumed: the one who
// forwards opens new ones), reconnects with backoff, and resumes every tail at its offset.
class ConnectionWorker : public QObject {
    Q_OBJECT
public:
    using HostKeyQuestion = std::function<bool(const HostKeyCheck &)>;
    // `interactive` is read at each authentication: when false, askCredential is never called.
    ConnectionWorker(ConnectionSettings settings, HostKeyQuestion askHostKey, PromptFunction askCredential,
                     std::shared_ptr<const std::atomic<bool>> interactive);
    ~ConnectionWorker() override;

public slots:
    void open();
    void close();
    // deadlineMs > 0: the command is stopped and fails (interrupted) if it runs longer.
    void startCommand(quint64 id, const QString &command, int deadlineMs);
    void stopCommand(quint64 id);
    void countSftpRequestsIn(std::shared_ptr<std::atomic<qint64>> counter) { m_sftpRequests = std::move(counter); }
    void startTail(quint64 id, const SftpTail &tail, TailPace pace, bool once);
    // The login-node follower (remote/follower/): the command that runs it there, and what it is ("compiled",
    // "shell"); empty: tails poll over SFTP. Started now and at each reconnect; tails go to it once it is ready.
    void setFollower(const QString &command, const QString &form);
    void setTailPace(quint64 id, TailPace pace);
    void stopTail(quint64 id);
    // Blocks this thread for the transfer (tails pause); `cancelled` is set from the caller's thread.
    void startUpload(quint64 id, const QString &localPath, const QString &remotePath, int mode,
                     std::shared_ptr<std::atomic<bool>> cancelled);
    // Downloads `bytes` of remotePath, appended to localPath from its size (a resumed download), a slice at a time
    // (connectionworkerdownloads.cpp): commands and tails go on between slices.
    void startDownload(quint64 id, const QString &remotePath, const QString &localPath, qint64 bytes,
                       std::shared_ptr<std::atomic<bool>> cancelled);
    // A TCP stream from the server to host:port (a direct-tcpip channel), read beside commands and tails.
    void startTunnel(quint64 id, const QString &host, int port);
    // A command on a pseudo-terminal (an interactive shell), its bytes both ways as a tunnel's; tunnelExited with
    // its exit status before tunnelClosed.
    void startTerminal(quint64 id, const QString &command, const QString &term, int cols, int rows);
    void resizeTerminal(quint64 id, int cols, int rows);
    void writeTunnel(quint64 id, const QByteArray &data);
    void stopTunnel(quint64 id);

signals:
    void stateChanged(torchdeck::ConnectionState state, const QString &detail);
    void commandOutput(quint64 id, const QByteArray &data, bool isStderr);
    void commandFinished(quint64 id, const torchdeck::remote::ExecResult &result);
    void tailData(quint64 id, qint64 offset, const QByteArray &data);
    void tailReset(quint64 id, const QString &reason);
    void tailFailed(quint64 id, const QString &error);
    void tailEnded(quint64 id); // a read once (Connection::readFrom) is done
    void uploadProgress(quint64 id, qint64 done, qint64 total);
    void uploadFinished(quint64 id, qint64 bytes, const QString &error);
    void downloadProgress(quint64 id, qint64 done, qint64 total);
    void downloadFinished(quint64 id, qint64 bytes, const QString &error);
    void tunnelOpened(quint64 id);
    void tunnelData(quint64 id, const QByteArray &data);
    void tunnelClosed(quint64 id, const QString &error); // empty: the far end closed the stream
    void tunnelExited(quint64 id, int exitStatus);       // a terminal's command ended (-1: no status said)
    // What follows the files now: "login-node follower (compiled)", "... (shell)" or "SFTP", and why the
    // follower was given up, if it was.
    void followingChanged(const QString &following, const QString &problem);

private:
    struct Command {
        ChannelHandle channel;
        ExecResult result;
        qint64 deadline = 0; // ms since the epoch; 0: none
        int deadlineMs = 0;
    };
    struct Waiting {
        quint64 id;
        QString command;
        int deadlineMs;
    };
    struct Tunnel {
        ChannelHandle channel;
        QByteArray unsent;     // beyond the channel's window: sent as the far end reads, never blocking the thread
        bool terminal = false; // a command on a pseudo-terminal: its exit status is said at its end
    };
    struct Tail {
        SftpTail tail;
        TailPace pace;
        qint64 lastDataMs = 0;
        qint64 nextPollMs = 0;
        bool once = false;     // read to the end as found, then done (Connection::readFrom)
        bool followed = false; // the login-node follower reads it (no SFTP polls)
    };
    struct Follower {
        ChannelHandle channel;
        FollowerFrames frames;
        bool ready = false;
        qint64 startedMs = 0;
        qint64 heardMs = 0; // its last bytes
        std::array<char, 64 * 1024> buffer{};
    };

    struct Download {
        std::unique_ptr<SftpDownload> transfer;
        std::shared_ptr<std::atomic<bool>> cancelled;
        qint64 movedMs = 0; // when bytes last arrived
    };

    bool connectOnce(QString &error);
    void setState(ConnectionState state, const QString &detail = {});
    void connectionLost(const QString &why);
    void scheduleReconnect();
    void launchCommand(const Waiting &waiting);
    void keepAlive();
    bool answering(); // a round trip; on no answer the connection is lost
    void heard();     // the server answered something
    void launchWaitingCommands();
    // The running ones (interrupted: they may have had effects) and the waiting ones (never started).
    void failCommands(const QString &error, bool interrupted);
    void pumpCommands();
    bool pumpCommand(quint64 id, Command &command); // true when it finished
    void pollTails();
    void fitPumpToTails();                // the pump ticks as often as the fastest tail looks
    void failReads(const QString &error); // the reads once in flight, as commands fail when the connection does
    // The login-node follower (connectionworkerfollower.cpp).
    void startFollower();
    void pumpFollower();
    void followerFrame(const FollowerFrame &frame);
    void followTail(quint64 id, Tail &tail); // hands it to the follower
    bool tellFollower(const QByteArray &command);
    void followerFailed(const QString &why); // its tails go back to SFTP; it is started again, or given up
    void dropFollower(bool politely = true); // politely: its stdin closed (it exits); else the channel is gone
    QString following() const;
    void continueDownload(quint64 id);
    void endDownload(quint64 id, const QString &error); // empty: done
    void failDownloads(const QString &error);           // before the SFTP session they read from goes
    void pumpTunnels();
    bool pumpTunnel(quint64 id, Tunnel &tunnel); // true when it ended
    bool sendUnsent(Tunnel &tunnel);             // false when the channel failed
    void dropTunnels(const QString &why);
    bool idle() const // nothing for the pump to do: a follower starting is waited for
    {
        return m_commands.empty() && m_tails.empty() && m_tunnels.empty() && (!m_follower || m_follower->ready);
    }
    sftp_session sftp(QString &error);

    ConnectionSettings m_settings;
    HostKeyQuestion m_askHostKey;
    PromptFunction m_askCredential;
    std::shared_ptr<const std::atomic<bool>> m_interactive;
    std::shared_ptr<std::atomic<qint64>> m_sftpRequests = std::make_shared<std::atomic<qint64>>(0);
    ConnectionState m_state = ConnectionState::Disconnected;
    SshSession m_ssh;
    SftpSessionHandle m_sftp;
    std::map<quint64, Command> m_commands; // running: at most maxRunningCommands
    std::deque<Waiting> m_waitingCommands; // for a channel, in the order asked
    std::map<quint64, Tail> m_tails;
    std::map<quint64, Tunnel> m_tunnels;
    std::map<quint64, Download> m_downloads;
    QString m_followerCommand;
    QString m_followerForm;
    std::unique_ptr<Follower> m_follower;
    int m_followerFailures = 0; // in a row, since it was last ready for a while
    QString m_followerProblem;
    QTimer m_pump;
    QTimer m_reconnect;
    QTimer m_keepalive;
    QTimer m_followerRestart;
    qint64 m_lastHeardMs = 0;
    int m_reconnectAttempt = 0;
};

} // namespace torchdeck::remote
