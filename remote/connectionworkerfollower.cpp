// ConnectionWorker: the login-node follower (remote/follower/torchdeck-follow.c says its protocol). One channel runs
// it; the worker hands it every tail (their offsets are the worker's: see SftpTail::followed) and turns its frames into
// the tails' data, resets and ends. Should it stop, the tails go on over SFTP from where they are, and it is started
// again; after failing in a row it is given up for this connection, and SFTP stays.
#include "remote/connectionworker.h"
#include "remote/followerinstall.h"
#include "remote/logging.h"
#include "remote/remotetr.h"

#include <QDateTime>
#include <cstring>

namespace torchdeck::remote {

namespace {
constexpr int readyWithinMs = 15000;     // its first line: a compile is done before it starts
constexpr int restartAfterMs = 1000;     // a follower that stopped (killed, a full disk) is started again
constexpr int mostFailuresInARow = 3;    // then SFTP for good, on this connection
constexpr qint64 trustedAfterMs = 60000; // ready for this long: its failures count from zero again

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}
} // namespace

void ConnectionWorker::setFollower(const QString &command, const QString &form)
{
    if (command == m_followerCommand && form == m_followerForm)
        return;
    dropFollower();
    m_followerCommand = command;
    m_followerForm = form;
    m_followerFailures = 0;
    m_followerProblem.clear();
    if (m_state == ConnectionState::Connected)
        startFollower();
    emit followingChanged(following(), m_followerProblem);
}

QString ConnectionWorker::following() const
{
    if (m_follower && m_follower->ready)
        return tr("login-node follower (%1)").arg(m_followerForm);
    return QStringLiteral("SFTP");
}

void ConnectionWorker::startFollower()
{
    if (m_followerCommand.isEmpty() || m_follower || m_state != ConnectionState::Connected ||
        m_followerFailures >= mostFailuresInARow)
        return;
    auto follower = std::make_unique<Follower>();
    const ExecResult started = m_ssh.startExec(m_followerCommand, follower->channel);
    if (!started.error.isEmpty()) {
        if (!m_ssh.isConnected())
            return connectionLost(started.error);
        return followerFailed(started.error);
    }
    follower->startedMs = nowMs();
    m_follower = std::move(follower);
    m_pump.start();
}

bool ConnectionWorker::tellFollower(const QByteArray &command)
{
    if (!m_follower || !m_follower->ready)
        return false;
    const int written = ssh_channel_write(m_follower->channel.get(), command.constData(), uint32_t(command.size()));
    if (written == int(command.size()))
        return true;
    followerFailed(tr("cannot write to the follower: %1").arg(m_ssh.lastError()));
    return false;
}

void ConnectionWorker::followTail(quint64 id, Tail &tail)
{
    // A path that would break its line-based commands stays with SFTP.
    if (tail.followed || tail.tail.path().contains(u'\n'))
        return;
    tail.followed = tellFollower(followerAdd(id, tail.tail.offset(), tail.tail.fromEnd(), tail.once,
                                             tail.pace.lookMs(true), tail.pace.quietLookMs(true), tail.tail.path()));
    if (tail.followed)
        fitPumpToTails(); // its frames are read as often as it looks
}

void ConnectionWorker::pumpFollower()
{
    if (!m_follower)
        return;
    Follower &follower = *m_follower;
    std::array<char, 64 * 1024> &buffer = follower.buffer;
    int n = 0;
    while ((n = ssh_channel_read_nonblocking(follower.channel.get(), buffer.data(), buffer.size(), 0)) > 0) {
        heard();
        follower.heardMs = nowMs();
        follower.frames.append(QByteArray(buffer.data(), n));
    }
    if (n == SSH_ERROR)
        return connectionLost(m_ssh.lastError());
    while ((n = ssh_channel_read_nonblocking(follower.channel.get(), buffer.data(), buffer.size(), 1)) > 0)
        qCInfo(lcRemote).noquote() << "follower on" << m_settings.host << "says:" << QByteArray(buffer.data(), n);
    while (m_follower && m_follower.get() == &follower) {
        const std::optional<FollowerFrame> frame = follower.frames.next();
        if (!frame)
            break;
        followerFrame(*frame);
    }
    if (!m_follower || m_follower.get() != &follower)
        return;
    if (follower.frames.failed())
        return followerFailed(follower.frames.error());
    if (ssh_channel_is_eof(follower.channel.get()) || !ssh_channel_is_open(follower.channel.get()))
        return followerFailed(
            tr("the follower ended (exit code %1)").arg(ssh_channel_get_exit_status(follower.channel.get())));
    if (!follower.ready && nowMs() - follower.startedMs > readyWithinMs)
        return followerFailed(tr("the follower did not start within %1 s").arg(readyWithinMs / 1000));
    // Read after all it sent was taken: silence is its own, not a pump that was idle.
    if (follower.ready && nowMs() - follower.heardMs > followerSilentAfterMs())
        return followerFailed(tr("the follower was silent for %1 s (stopped?)").arg(followerSilentAfterMs() / 1000.0));
}

void ConnectionWorker::followerFrame(const FollowerFrame &frame)
{
    using Kind = FollowerFrame::Kind;
    if (frame.kind == Kind::Ready) {
        if (frame.version != 1)
            return followerFailed(tr("the follower speaks protocol %1, not 1").arg(frame.version));
        m_follower->ready = true;
        m_follower->heardMs = nowMs();
        qCInfo(lcRemote) << "files on" << m_settings.host << "are followed by" << following();
        for (auto &[id, tail] : m_tails)
            followTail(id, tail);
        emit followingChanged(following(), {});
        return;
    }
    if (frame.kind == Kind::Heartbeat) {
        if (nowMs() - m_follower->startedMs > trustedAfterMs)
            m_followerFailures = 0;
        return;
    }
    const auto it = m_tails.find(frame.id);
    if (it == m_tails.end() || !it->second.followed)
        return; // stopped meanwhile, or from before a restart
    Tail &tail = it->second;
    switch (frame.kind) {
    case Kind::Data:
        heard();
        if (frame.offset != tail.tail.offset() && tail.tail.fromEnd() == 0)
            return; // sent for the same id before it was dropped and added again
        tail.tail.followed(frame.offset, frame.bytes);
        tail.lastDataMs = nowMs();
        emit tailData(frame.id, frame.offset, frame.bytes);
        return;
    case Kind::Truncated:
    case Kind::Replaced:
        if (tail.once) { // a read once of a file now shorter than its offset: nothing more, as `tail -c +N`
            tellFollower(followerDrop(frame.id));
            emit tailEnded(frame.id);
            m_tails.erase(it);
            return;
        }
        emit tailReset(
            frame.id, (frame.kind == Kind::Truncated ? tail.tail.truncated(frame.size) : tail.tail.replaced()).message);
        return;
    case Kind::Ended:
        emit tailEnded(frame.id);
        m_tails.erase(it);
        fitPumpToTails();
        return;
    case Kind::Failed:
        emit tailFailed(
            frame.id,
            Tr::tr("cannot read %1: %2").arg(tail.tail.path(), QString::fromLocal8Bit(std::strerror(frame.error))));
        m_tails.erase(it);
        fitPumpToTails();
        return;
    case Kind::Ready:
    case Kind::Heartbeat:
        return;
    }
}

void ConnectionWorker::dropFollower(bool politely)
{
    m_followerRestart.stop();
    if (politely && m_follower && m_follower->channel) {
        ssh_channel_send_eof(m_follower->channel.get()); // its stdin closes: it exits
        ssh_channel_close(m_follower->channel.get());
    }
    m_follower.reset();
    for (auto &[id, tail] : m_tails) {
        if (tail.followed) {
            tail.followed = false;
            tail.nextPollMs = 0; // over SFTP from where it is, at once
        }
    }
    fitPumpToTails();
}

void ConnectionWorker::followerFailed(const QString &why)
{
    const bool wasFollowing = m_follower && m_follower->ready;
    qCInfo(lcRemote).noquote() << "the follower on" << m_settings.host << "stopped:" << why;
    dropFollower();
    m_followerProblem = why;
    if (++m_followerFailures >= mostFailuresInARow)
        qCInfo(lcRemote) << "files on" << m_settings.host << "are followed over SFTP from now on";
    else
        m_followerRestart.start(restartAfterMs);
    if (wasFollowing || m_followerFailures >= mostFailuresInARow)
        emit followingChanged(following(), m_followerProblem);
}

} // namespace torchdeck::remote
