// ConnectionWorker's tunnels: direct-tcpip channels, and commands on a pseudo-terminal, read in the pump beside
// commands and tails.
#include "remote/connectionworker.h"

#include <algorithm>
#include <array>

namespace torchdeck::remote {

namespace {
constexpr int tunnelReadBytes = 64 * 1024;
// Per pump and tunnel, so one busy stream cannot hold back the others, the commands and the tails.
constexpr int tunnelReadsPerPump = 16;
} // namespace

void ConnectionWorker::startTunnel(quint64 id, const QString &host, int port)
{
    if (m_state != ConnectionState::Connected) {
        emit tunnelClosed(id, tr("not connected to %1 (%2)").arg(m_settings.host, connectionStateName(m_state)));
        return;
    }
    ChannelHandle channel;
    // Opens blocking, as a command's channel does: sshd answers once its connect() to host:port is done.
    if (const QString error = m_ssh.openForward(host, port, channel); !error.isEmpty()) {
        // A refusal, or a connection that is gone or no longer answers: the state first, so whoever hears of
        // this tunnel's end knows that a new one waits for the reconnect.
        if (!m_ssh.isConnected())
            connectionLost(error);
        else
            answering();
        emit tunnelClosed(id, error);
        return;
    }
    heard();
    m_tunnels.emplace(id, Tunnel{std::move(channel), {}});
    emit tunnelOpened(id);
    m_pump.start();
}

void ConnectionWorker::startTerminal(quint64 id, const QString &command, const QString &term, int cols, int rows)
{
    if (m_state != ConnectionState::Connected) {
        emit tunnelClosed(id, tr("not connected to %1 (%2)").arg(m_settings.host, connectionStateName(m_state)));
        return;
    }
    ChannelHandle channel;
    if (const QString error = m_ssh.openTerminal(command, term, cols, rows, channel); !error.isEmpty()) {
        if (!m_ssh.isConnected())
            connectionLost(error);
        emit tunnelClosed(id, error);
        return;
    }
    heard();
    m_tunnels.emplace(id, Tunnel{std::move(channel), {}, true});
    emit tunnelOpened(id);
    m_pump.start();
}

void ConnectionWorker::resizeTerminal(quint64 id, int cols, int rows)
{
    const auto it = m_tunnels.find(id);
    if (it != m_tunnels.end() && it->second.terminal)
        ssh_channel_change_pty_size(it->second.channel.get(), cols, rows);
}

void ConnectionWorker::writeTunnel(quint64 id, const QByteArray &data)
{
    const auto it = m_tunnels.find(id);
    if (it == m_tunnels.end())
        return; // closed meanwhile: its closing was said already
    it->second.unsent += data;
    if (sendUnsent(it->second))
        return;
    const QString error = m_ssh.lastError();
    m_tunnels.erase(it);
    emit tunnelClosed(id, error);
    if (!m_ssh.isConnected())
        connectionLost(error);
}

bool ConnectionWorker::sendUnsent(Tunnel &tunnel)
{
    // Only what the channel's window takes: a write beyond it would block this thread (and every command and
    // tail of the connection) until the far end reads.
    const qsizetype fits = std::min<qsizetype>(tunnel.unsent.size(), ssh_channel_window_size(tunnel.channel.get()));
    if (fits <= 0)
        return true;
    const int written = ssh_channel_write(tunnel.channel.get(), tunnel.unsent.constData(), uint32_t(fits));
    if (written < 0)
        return false;
    tunnel.unsent.remove(0, written);
    return true;
}

void ConnectionWorker::stopTunnel(quint64 id)
{
    const auto it = m_tunnels.find(id);
    if (it == m_tunnels.end())
        return;
    ssh_channel_send_eof(it->second.channel.get());
    ssh_channel_close(it->second.channel.get());
    m_tunnels.erase(it);
}

bool ConnectionWorker::pumpTunnel(quint64 id, Tunnel &tunnel)
{
    ssh_channel channel = tunnel.channel.get();
    if (!sendUnsent(tunnel)) {
        const QString error = m_ssh.lastError();
        if (!m_ssh.isConnected()) {
            connectionLost(error);
            return false;
        }
        emit tunnelClosed(id, error); // this channel alone failed (its far end closed it)
        return true;
    }
    std::array<char, tunnelReadBytes> buffer{};
    int n = 0;
    for (int reads = 0; reads < tunnelReadsPerPump; ++reads) {
        n = ssh_channel_read_nonblocking(channel, buffer.data(), buffer.size(), 0);
        if (n <= 0)
            break;
        heard();
        emit tunnelData(id, QByteArray(buffer.data(), n));
    }
    if (n == SSH_ERROR) {
        connectionLost(m_ssh.lastError());
        return false;
    }
    if (n > 0 || (!ssh_channel_is_eof(channel) && ssh_channel_is_open(channel)))
        return false;
    if (tunnel.terminal)
        emit tunnelExited(id, ssh_channel_get_exit_status(channel));
    ssh_channel_close(channel);
    emit tunnelClosed(id, {});
    return true;
}

void ConnectionWorker::pumpTunnels()
{
    for (auto it = m_tunnels.begin(); it != m_tunnels.end();) {
        const bool ended = pumpTunnel(it->first, it->second);
        if (m_state != ConnectionState::Connected)
            return; // the connection was lost: m_tunnels was emptied under this loop
        it = ended ? m_tunnels.erase(it) : std::next(it);
    }
    if (idle())
        m_pump.stop();
}

void ConnectionWorker::dropTunnels(const QString &why)
{
    // The channels go before the session they belong to; each one's far end sees the session end.
    for (const auto &[id, channel] : std::exchange(m_tunnels, {}))
        emit tunnelClosed(id, why);
}

} // namespace torchdeck::remote
