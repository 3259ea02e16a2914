#include "remote/connectionworker.h"

#include "remote/logging.h"
#include "remote/sftpupload.h"

#include <QDateTime>
#include <algorithm>
#include <array>

namespace torchdeck::remote {

namespace {
constexpr int pumpIntervalMs = 10;
constexpr qint64 tailChunkBytes = qint64(4) * 1024 * 1024;
constexpr qint64 tailQuietAfterMs = 5000;
constexpr int readBufferSize = 64 * 1024;

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}
} // namespace

ConnectionWorker::ConnectionWorker(ConnectionSettings settings, HostKeyQuestion askHostKey,
                                   PromptFunction askCredential, std::shared_ptr<const std::atomic<bool>> interactive)
    : m_settings(std::move(settings))
    , m_askHostKey(std::move(askHostKey))
    , m_askCredential(std::move(askCredential))
    , m_interactive(std::move(interactive))
    , m_pump(this) // parented, so moveToThread takes the timers along
    , m_reconnect(this)
    , m_keepalive(this)
    , m_followerRestart(this)
{
    m_followerRestart.setSingleShot(true);
    connect(&m_followerRestart, &QTimer::timeout, this, &ConnectionWorker::startFollower);
    m_keepalive.setInterval(std::max(1000, m_settings.keepaliveMs / 2));
    connect(&m_keepalive, &QTimer::timeout, this, &ConnectionWorker::keepAlive);
    m_pump.setInterval(pumpIntervalMs);
    connect(&m_pump, &QTimer::timeout, this, [this] {
        pumpCommands();
        pumpFollower();
        pollTails();
        pumpTunnels();
    });
    m_reconnect.setSingleShot(true);
    connect(&m_reconnect, &QTimer::timeout, this, [this] {
        QString error;
        if (connectOnce(error))
            return;
        qCInfo(lcRemote) << "reconnect to" << m_settings.host << "failed:" << error;
        scheduleReconnect();
    });
}

ConnectionWorker::~ConnectionWorker() = default;

void ConnectionWorker::setState(ConnectionState state, const QString &detail)
{
    m_state = state;
    emit stateChanged(state, detail);
}

bool ConnectionWorker::connectOnce(QString &error)
{
    m_sftp.reset();
    error = m_ssh.connect(m_settings.host, m_settings.sshConfigFile, m_settings.answerTimeoutMs);
    if (error.isEmpty()) {
        const HostKeyCheck key = m_ssh.checkHostKey();
        if (key.status == HostKeyStatus::Unknown) {
            if (m_askHostKey && m_askHostKey(key))
                error = m_ssh.acceptHostKey();
            else
                error = tr("the host key of %1 (%2 %3) is not known and was not accepted")
                            .arg(m_settings.host, key.keyType, key.fingerprintSha256);
        } else if (key.status != HostKeyStatus::Known) {
            error = key.error;
        }
    }
    if (error.isEmpty())
        error = m_ssh.authenticate(*m_interactive ? m_askCredential : PromptFunction());
    if (!error.isEmpty()) {
        m_ssh.disconnect();
        return false;
    }
    m_reconnectAttempt = 0;
    heard();
    m_keepalive.start();
    setState(ConnectionState::Connected);
    if (!m_tails.empty())
        m_pump.start();
    startFollower(); // its tails follow once it says it is ready
    return true;
}

void ConnectionWorker::open()
{
    if (m_state == ConnectionState::Connected)
        return;
    setState(ConnectionState::Connecting);
    QString error;
    if (!connectOnce(error))
        setState(ConnectionState::Failed, error);
}

void ConnectionWorker::close()
{
    m_reconnect.stop();
    m_pump.stop();
    m_keepalive.stop();
    failCommands(tr("connection closed"), true);
    failReads(tr("connection closed"));
    dropTunnels(tr("connection closed"));
    dropFollower();
    m_tails.clear();
    m_sftp.reset();
    m_ssh.disconnect();
    setState(ConnectionState::Disconnected);
}

void ConnectionWorker::connectionLost(const QString &why)
{
    if (m_state != ConnectionState::Connected)
        return;
    qCInfo(lcRemote) << "connection to" << m_settings.host << "lost:" << why;
    m_pump.stop();
    m_keepalive.stop();
    // The state first: whoever hears of a failed command then knows it must wait for the reconnect. The
    // commands' channels go before the session they belong to.
    setState(ConnectionState::Reconnecting, why);
    failCommands(tr("connection to %1 lost while the command ran (%2); it may or may not have completed")
                     .arg(m_settings.host, why),
                 true);
    failReads(tr("connection to %1 lost while reading (%2)").arg(m_settings.host, why));
    dropTunnels(tr("connection to %1 lost (%2)").arg(m_settings.host, why));
    dropFollower(false); // its channel went with the connection; it is started again with the next one
    m_sftp.reset();
    m_ssh.disconnect();
    scheduleReconnect();
}

void ConnectionWorker::scheduleReconnect()
{
    if (m_reconnectAttempt >= m_settings.reconnectAttempts) {
        setState(ConnectionState::Failed,
                 tr("gave up reconnecting to %1 after %2 attempts").arg(m_settings.host).arg(m_reconnectAttempt));
        return;
    }
    const int delay = std::min(m_settings.reconnectMaxDelayMs, m_settings.reconnectFirstDelayMs << m_reconnectAttempt);
    ++m_reconnectAttempt;
    m_reconnect.start(delay);
}

void ConnectionWorker::startCommand(quint64 id, const QString &command, int deadlineMs)
{
    if (m_state != ConnectionState::Connected) {
        ExecResult refused;
        refused.error = tr("not connected to %1 (%2)").arg(m_settings.host, connectionStateName(m_state));
        emit commandFinished(id, refused);
        return;
    }
    m_waitingCommands.push_back({id, command, deadlineMs});
    launchWaitingCommands();
}

void ConnectionWorker::launchWaitingCommands()
{
    const auto limit = size_t(std::max(1, m_settings.maxRunningCommands));
    while (!m_waitingCommands.empty() && m_commands.size() < limit && m_state == ConnectionState::Connected) {
        const Waiting next = m_waitingCommands.front();
        m_waitingCommands.pop_front();
        launchCommand(next);
    }
}

void ConnectionWorker::launchCommand(const Waiting &waiting)
{
    Command running;
    // The channel opens blocking; reads are then polled so commands and tails share the session.
    running.result = m_ssh.startExec(waiting.command, running.channel);
    if (!running.result.error.isEmpty()) {
        emit commandFinished(waiting.id, running.result);
        // No channel: a closed connection, or a server that no longer answers (the open timed out).
        if (!m_ssh.isConnected() || !answering())
            connectionLost(running.result.error);
        return;
    }
    heard();
    running.deadlineMs = waiting.deadlineMs;
    running.deadline = waiting.deadlineMs > 0 ? nowMs() + waiting.deadlineMs : 0;
    m_commands.emplace(waiting.id, std::move(running));
    m_pump.start();
}

void ConnectionWorker::heard()
{
    m_lastHeardMs = nowMs();
}

bool ConnectionWorker::answering()
{
    if (m_state != ConnectionState::Connected)
        return false;
    if (!m_ssh.roundTrip()) {
        connectionLost(tr("no answer from %1 within %2 s (the link stalled, or the server stopped)")
                           .arg(m_settings.host)
                           .arg(m_settings.answerTimeoutMs / 1000.0));
        return false;
    }
    heard();
    return true;
}

void ConnectionWorker::keepAlive()
{
    // Only after a quiet spell: a command or a tail that receives data proves the link already.
    if (m_state == ConnectionState::Connected && nowMs() - m_lastHeardMs >= m_settings.keepaliveMs)
        answering();
}

void ConnectionWorker::failCommands(const QString &error, bool interrupted)
{
    for (auto &[id, command] : m_commands) {
        command.result.error = error;
        command.result.interrupted = interrupted;
        emit commandFinished(id, command.result);
    }
    m_commands.clear();
    // Never started: nothing happened on the cluster.
    ExecResult notRun;
    notRun.error = tr("not run: %1").arg(error.section(QStringLiteral(" while"), 0, 0));
    for (const Waiting &waiting : std::exchange(m_waitingCommands, {}))
        emit commandFinished(waiting.id, notRun);
}

void ConnectionWorker::stopCommand(quint64 id)
{
    const auto waiting = std::find_if(m_waitingCommands.begin(), m_waitingCommands.end(),
                                      [id](const Waiting &entry) { return entry.id == id; });
    if (waiting != m_waitingCommands.end()) {
        m_waitingCommands.erase(waiting);
        ExecResult stopped;
        stopped.error = tr("stopped");
        emit commandFinished(id, stopped);
        return;
    }
    const auto it = m_commands.find(id);
    if (it == m_commands.end())
        return;
    ssh_channel_request_send_signal(it->second.channel.get(), "TERM");
    ssh_channel_close(it->second.channel.get());
    it->second.result.error = tr("stopped");
    emit commandFinished(id, it->second.result);
    m_commands.erase(it);
    launchWaitingCommands();
}

bool ConnectionWorker::pumpCommand(quint64 id, Command &command)
{
    std::array<char, readBufferSize> buffer{};
    for (const int isStderr : {0, 1}) {
        int n = 0;
        while ((n = ssh_channel_read_nonblocking(command.channel.get(), buffer.data(), buffer.size(), isStderr)) > 0) {
            heard();
            const QByteArray chunk(buffer.data(), n);
            (isStderr ? command.result.err : command.result.out).append(chunk);
            emit commandOutput(id, chunk, isStderr != 0);
        }
        if (n == SSH_ERROR) {
            connectionLost(m_ssh.lastError());
            return false;
        }
    }
    if (!ssh_channel_is_eof(command.channel.get())) {
        if (command.deadline == 0 || nowMs() < command.deadline)
            return false;
        ssh_channel_request_send_signal(command.channel.get(), "TERM");
        ssh_channel_close(command.channel.get());
        command.result.error = tr("no end within %1 s: stopped").arg(command.deadlineMs / 1000);
        command.result.interrupted = true;
        emit commandFinished(id, command.result);
        return true;
    }
    heard();
    command.result.exitCode = ssh_channel_get_exit_status(command.channel.get());
    ssh_channel_close(command.channel.get());
    emit commandFinished(id, command.result);
    return true;
}

void ConnectionWorker::pumpCommands()
{
    bool finished = false;
    for (auto it = m_commands.begin(); it != m_commands.end();) {
        const bool ended = pumpCommand(it->first, it->second);
        if (m_state != ConnectionState::Connected)
            return; // the connection was lost: m_commands was emptied under this loop
        if (ended) {
            it = m_commands.erase(it);
            finished = true;
        } else {
            ++it;
        }
    }
    if (finished)
        launchWaitingCommands();
    if (idle())
        m_pump.stop();
}

sftp_session ConnectionWorker::sftp(QString &error)
{
    if (!m_sftp) {
        SftpSessionHandle session(m_ssh.newSftp(error));
        if (!session)
            return nullptr;
        m_sftp = std::move(session);
    }
    return m_sftp.get();
}

void ConnectionWorker::startTail(quint64 id, const SftpTail &tail, TailPace pace, bool once)
{
    if (once && m_state != ConnectionState::Connected) { // refused at once, as a command is
        emit tailFailed(id, tr("not connected to %1 (%2)").arg(m_settings.host, connectionStateName(m_state)));
        return;
    }
    stopTail(id);
    Tail &added = m_tails.emplace(id, Tail{tail, pace, nowMs(), 0, once}).first->second;
    followTail(id, added); // the follower's, when it runs
    fitPumpToTails();
    if (m_state == ConnectionState::Connected)
        m_pump.start();
}

void ConnectionWorker::setTailPace(quint64 id, TailPace pace)
{
    const auto it = m_tails.find(id);
    if (it == m_tails.end())
        return;
    it->second.pace = pace;
    it->second.nextPollMs = std::min(it->second.nextPollMs, nowMs() + pace.growingMs); // faster now: not a slow wait
    if (it->second.followed)
        tellFollower(followerPace(id, pace.lookMs(true), pace.quietLookMs(true)));
    fitPumpToTails();
}

void ConnectionWorker::stopTail(quint64 id)
{
    const auto it = m_tails.find(id);
    if (it == m_tails.end())
        return;
    if (it->second.followed)
        tellFollower(followerDrop(id));
    m_tails.erase(it);
    fitPumpToTails();
}

void ConnectionWorker::failReads(const QString &error)
{
    failDownloads(error);
    for (auto it = m_tails.begin(); it != m_tails.end();) {
        if (!it->second.once) {
            ++it;
            continue;
        }
        emit tailFailed(it->first, error);
        it = m_tails.erase(it);
    }
    fitPumpToTails();
}

void ConnectionWorker::fitPumpToTails()
{
    int interval = pumpIntervalMs;
    for (const auto &[id, tail] : m_tails)
        interval = std::min(interval, tail.pace.lookMs(tail.followed));
    if (m_pump.interval() != std::max(1, interval))
        m_pump.setInterval(std::max(1, interval));
}

void ConnectionWorker::pollTails()
{
    const qint64 now = nowMs();
    for (auto it = m_tails.begin(); it != m_tails.end() && m_state == ConnectionState::Connected;) {
        const quint64 id = it->first;
        Tail &tail = it->second;
        if (now < tail.nextPollMs || tail.followed) { // a followed tail's data comes from the login node
            ++it;
            continue;
        }
        QString error;
        const sftp_session session = sftp(error);
        if (!session) {
            if (!m_ssh.isConnected())
                return connectionLost(error);
            if (!answering())
                return;
            emit tailFailed(id, error);
            it = m_tails.erase(it);
            continue;
        }
        TailPoll poll = tail.tail.poll(session, tailChunkBytes);
        *m_sftpRequests += poll.requests;
        // A read once of a file now shorter than its offset: nothing to read, as `tail -c +N`.
        if (tail.once && poll.kind == TailPoll::Kind::Reset)
            poll.kind = TailPoll::Kind::Nothing;
        if (poll.kind != TailPoll::Kind::ConnectionLost && poll.kind != TailPoll::Kind::Error)
            heard(); // an SFTP round trip
        const bool quiet = now - tail.lastDataMs > tailQuietAfterMs;
        tail.nextPollMs =
            now + (quiet || poll.kind == TailPoll::Kind::Missing ? tail.pace.quietMs : tail.pace.growingMs);
        switch (poll.kind) {
        case TailPoll::Kind::Data:
            tail.lastDataMs = now;
            // More is waiting: read on at the next pump; else it grows: look again soon.
            tail.nextPollMs = poll.bytes.size() >= tailChunkBytes ? now : now + tail.pace.growingMs;
            emit tailData(id, poll.offset, poll.bytes);
            break;
        case TailPoll::Kind::Reset:
            tail.nextPollMs = now;
            emit tailReset(id, poll.message);
            break;
        case TailPoll::Kind::ConnectionLost:
            if (!m_ssh.isConnected())
                return connectionLost(poll.message);
            if (!answering())
                return;
            failDownloads(poll.message);
            m_sftp.reset(); // the SFTP channel died but the session lives: open a new one next time
            break;
        case TailPoll::Kind::Error:
            emit tailFailed(id, poll.message);
            it = m_tails.erase(it);
            continue;
        case TailPoll::Kind::Nothing:
        case TailPoll::Kind::Missing:
            break;
        }
        const bool more = poll.kind == TailPoll::Kind::Data && poll.bytes.size() >= tailChunkBytes;
        if (tail.once && !more && poll.kind != TailPoll::Kind::ConnectionLost) {
            emit tailEnded(id);
            it = m_tails.erase(it);
            fitPumpToTails();
            continue;
        }
        ++it;
    }
}

} // namespace torchdeck::remote

namespace torchdeck::remote {

void ConnectionWorker::startUpload(quint64 id, const QString &localPath, const QString &remotePath, int mode,
                                   std::shared_ptr<std::atomic<bool>> cancelled)
{
    QString error;
    const sftp_session session = m_state == ConnectionState::Connected ? sftp(error) : nullptr;
    if (!session) {
        emit uploadFinished(id, 0, error.isEmpty() ? tr("not connected to %1").arg(m_settings.host) : error);
        return;
    }
    constexpr qint64 progressEveryBytes = qint64(1024) * 1024;
    qint64 reported = 0;
    const UploadResult result = uploadFile(session, localPath, remotePath, mode, [&](qint64 done, qint64 total) {
        if (done - reported >= progressEveryBytes || done == total) {
            reported = done;
            emit uploadProgress(id, done, total);
        }
        return !*cancelled;
    });
    emit uploadFinished(id, result.bytes, result.error);
    if (!result.error.isEmpty() && !m_ssh.isConnected())
        connectionLost(result.error);
}

} // namespace torchdeck::remote
