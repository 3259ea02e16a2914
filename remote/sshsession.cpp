#include "remote/sshsession.h"

#include "core/sshconfigparser.h"
#include "remote/logging.h"
#include "remote/remotetr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QStringList>
#include <algorithm>
#include <array>
#include <cstring>

namespace torchdeck::remote {

namespace {
constexpr int readPollMs = 100;
constexpr int readBufferSize = 64 * 1024;

// For /bin/sh, after libssh's own %-expansion of the ProxyCommand.
QByteArray proxyCommandQuoted(const QString &text)
{
    QByteArray bytes = text.toUtf8();
    bytes.replace('%', "%%").replace('\'', "'\\''");
    return '\'' + bytes + '\'';
}
} // namespace

// libssh 0.10 turns "ProxyJump J" into the ProxyCommand "ssh [-l U] [-p P] [-J REST] -W '[%h]:%p' J", run by
// /bin/sh with stderr to /dev/null. That OpenSSH ssh reads ~/.ssh/config: with a config file of our own it
// would not know the jump host's alias, so it gets -F; and -E keeps its error for our message.
QString SshSession::proxyJumpThroughOurConfig(const QString &configFile)
{
    m_proxyLog.reset();
    char *raw = nullptr;
    if (ssh_options_get(m_session.get(), SSH_OPTIONS_PROXYCOMMAND, &raw) != SSH_OK || !raw)
        return {};
    const CStringHandle owned(raw);
    QByteArray command(raw);
    if (!command.startsWith("ssh ") || !command.contains(" -W '[%h]:%p' "))
        return {}; // a ProxyCommand of the user's own runs as written
    QByteArray options;
    if (!configFile.isEmpty())
        options += " -F " + proxyCommandQuoted(configFile);
    auto log = std::make_unique<QTemporaryFile>();
    if (log->open()) {
        options += " -E " + proxyCommandQuoted(log->fileName());
        m_proxyLog = std::move(log);
    }
    command.insert(int(qstrlen("ssh")), options);
    qCDebug(lcRemote) << "reaching" << m_host << "through ProxyJump:" << command;
    if (ssh_options_set(m_session.get(), SSH_OPTIONS_PROXYCOMMAND, command.constData()) != SSH_OK)
        return Tr::tr("cannot set the ProxyJump command for %1: %2").arg(m_host, sshError());
    return {};
}

// What the jump host's ssh said when it failed (e.g. "Host key verification failed."), or nothing.
QString SshSession::proxyFailure() const
{
    if (!m_proxyLog)
        return {};
    QFile log(m_proxyLog->fileName());
    if (!log.open(QIODevice::ReadOnly))
        return {};
    const QStringList lines = QString::fromUtf8(log.readAll()).trimmed().split(u'\n', Qt::SkipEmptyParts);
    constexpr int linesKept = 2; // its last words are the reason
    return lines.isEmpty() ? QString()
                           : Tr::tr(" (the ssh to the jump host said: %1)")
                                 .arg(lines.mid(std::max(0, int(lines.size()) - linesKept)).join(QStringLiteral("; ")));
}

QString SshSession::sshError() const
{
    return m_session ? QString::fromUtf8(ssh_get_error(m_session.get())) : Tr::tr("not connected");
}

bool SshSession::isConnected() const
{
    return m_session && ssh_is_connected(m_session.get());
}

QString SshSession::connect(const QString &host, const QString &configFile, int timeoutMs)
{
    m_session.reset(ssh_new());
    m_host = host;
    if (!m_session)
        return Tr::tr("cannot create an SSH session (out of memory?)");
    const QByteArray hostBytes = host.toUtf8();
    if (ssh_options_set(m_session.get(), SSH_OPTIONS_HOST, hostBytes.constData()) != SSH_OK)
        return Tr::tr("invalid host '%1': %2").arg(host, sshError());
    const QByteArray configBytes = configFile.toUtf8();
    if (ssh_options_parse_config(m_session.get(), configFile.isEmpty() ? nullptr : configBytes.constData()) != SSH_OK)
        return Tr::tr("cannot read ssh config %1: %2").arg(configFile, sshError());
    if (QString error = proxyJumpThroughOurConfig(configFile); !error.isEmpty())
        return error;
    // Request/response traffic (SFTP, short commands) stalls on Nagle + delayed ACKs without this.
    const int noDelay = 1;
    ssh_options_set(m_session.get(), SSH_OPTIONS_NODELAY, &noDelay);
    const QString sshDir = QDir::homePath() + QStringLiteral("/.ssh");
    m_hashKnownHosts = readSshConfig(configFile.isEmpty() ? sshDir + QStringLiteral("/config") : configFile, sshDir)
                           .resolve(host)
                           .hashKnownHosts;
    const long seconds = std::max(1, timeoutMs / 1000);
    const long microseconds = (timeoutMs % 1000) * 1000L;
    ssh_options_set(m_session.get(), SSH_OPTIONS_TIMEOUT, &seconds);
    ssh_options_set(m_session.get(), SSH_OPTIONS_TIMEOUT_USEC, &microseconds);
    qCDebug(lcRemote) << "connecting to" << host;
    if (ssh_connect(m_session.get()) != SSH_OK)
        return Tr::tr("cannot connect to %1: %2%3").arg(host, sshError(), proxyFailure());
    return {};
}

HostKeyCheck SshSession::checkHostKey()
{
    HostKeyCheck check;
    ssh_key rawKey = nullptr;
    if (!m_session || ssh_get_server_publickey(m_session.get(), &rawKey) != SSH_OK) {
        check.error = Tr::tr("the server sent no host key: %1").arg(sshError());
        return check;
    }
    const KeyHandle key(rawKey);
    check.keyType = QString::fromUtf8(ssh_key_type_to_char(ssh_key_type(key.get())));
    unsigned char *rawHash = nullptr;
    size_t hashLength = 0;
    if (ssh_get_publickey_hash(key.get(), SSH_PUBLICKEY_HASH_SHA256, &rawHash, &hashLength) == SSH_OK) {
        const HashHandle hash(rawHash);
        const CStringHandle text(ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash.get(), hashLength));
        check.fingerprintSha256 = QString::fromUtf8(text.get());
    }
    switch (ssh_session_is_known_server(m_session.get())) {
    case SSH_KNOWN_HOSTS_OK:
        check.status = HostKeyStatus::Known;
        break;
    case SSH_KNOWN_HOSTS_NOT_FOUND:
    case SSH_KNOWN_HOSTS_UNKNOWN:
        check.status = HostKeyStatus::Unknown;
        break;
    case SSH_KNOWN_HOSTS_CHANGED:
        check.status = HostKeyStatus::Changed;
        check.error = Tr::tr("the host key of %1 has CHANGED (now %2 %3): this may be an attack; "
                             "if the server was reinstalled, remove its old line from known_hosts")
                          .arg(m_host, check.keyType, check.fingerprintSha256);
        break;
    case SSH_KNOWN_HOSTS_OTHER:
        check.status = HostKeyStatus::OtherType;
        check.error = Tr::tr("%1 offered a %2 host key but known_hosts holds a key of another type "
                             "for it: refusing, as ssh does")
                          .arg(m_host, check.keyType);
        break;
    case SSH_KNOWN_HOSTS_ERROR:
        check.status = HostKeyStatus::Error;
        check.error = Tr::tr("cannot check known_hosts: %1").arg(sshError());
        break;
    }
    return check;
}

QString SshSession::acceptHostKey()
{
    if (!m_session)
        return Tr::tr("not connected to %1").arg(m_host);
    if (!m_hashKnownHosts) {
        if (ssh_session_update_known_hosts(m_session.get()) != SSH_OK)
            return Tr::tr("cannot record the host key in known_hosts: %1").arg(sshError());
        return {};
    }
    // libssh writes the host name in the clear: with HashKnownHosts yes the line is written here, hashed.
    char *rawEntry = nullptr;
    if (ssh_session_export_known_hosts_entry(m_session.get(), &rawEntry) != SSH_OK)
        return Tr::tr("cannot record the host key in known_hosts: %1").arg(sshError());
    const CStringHandle entry(rawEntry);
    char *rawPath = nullptr;
    if (ssh_options_get(m_session.get(), SSH_OPTIONS_KNOWNHOSTS, &rawPath) != SSH_OK)
        return Tr::tr("cannot tell which known_hosts file to write: %1").arg(sshError());
    const CStringHandle knownHosts(rawPath);
    const QString line = QString::fromUtf8(entry.get()).trimmed();
    QByteArray salt(20, '\0');
    QRandomGenerator::system()->generate(salt.begin(), salt.end());
    const QString hashed = hashedKnownHostName(line.section(u' ', 0, 0), salt) + u' ' + line.section(u' ', 1);
    const QString path = QString::fromUtf8(knownHosts.get());
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::Append | QIODevice::Text) || file.write((hashed + u'\n').toUtf8()) < 0)
        return Tr::tr("cannot record the host key in %1: %2").arg(path, file.errorString());
    return {};
}

ExecResult SshSession::startExec(const QString &command, ChannelHandle &channel)
{
    ExecResult result;
    if (!isConnected()) {
        result.error = Tr::tr("not connected to %1").arg(m_host);
        return result;
    }
    channel.reset(ssh_channel_new(m_session.get()));
    const QByteArray commandBytes = command.toUtf8();
    if (!channel || ssh_channel_open_session(channel.get()) != SSH_OK ||
        ssh_channel_request_exec(channel.get(), commandBytes.constData()) != SSH_OK) {
        result.error = Tr::tr("cannot run a command on %1: %2").arg(m_host, sshError());
        channel.reset();
    }
    return result;
}

QString SshSession::openForward(const QString &host, int port, ChannelHandle &channel)
{
    if (!isConnected())
        return Tr::tr("not connected to %1").arg(m_host);
    channel.reset(ssh_channel_new(m_session.get()));
    const QByteArray hostBytes = host.toUtf8();
    // The originator's address is only informative for the server: this end is the agent's own listener.
    if (channel && ssh_channel_open_forward(channel.get(), hostBytes.constData(), port, "127.0.0.1", 0) == SSH_OK)
        return {};
    channel.reset();
    return Tr::tr("%1 could not connect to %2:%3 (%4)").arg(m_host, host).arg(port).arg(sshError());
}

QString SshSession::openTerminal(const QString &command, const QString &term, int cols, int rows,
                                 ChannelHandle &channel)
{
    if (!isConnected())
        return Tr::tr("not connected to %1").arg(m_host);
    channel.reset(ssh_channel_new(m_session.get()));
    const QByteArray termBytes = term.toUtf8();
    const QByteArray commandBytes = command.toUtf8();
    if (channel && ssh_channel_open_session(channel.get()) == SSH_OK &&
        ssh_channel_request_pty_size(channel.get(), termBytes.constData(), cols, rows) == SSH_OK &&
        ssh_channel_request_exec(channel.get(), commandBytes.constData()) == SSH_OK)
        return {};
    channel.reset();
    return Tr::tr("%1 could not start a terminal (%2)").arg(m_host, sshError());
}

sftp_session SshSession::newSftp(QString &error)
{
    if (!isConnected()) {
        error = Tr::tr("not connected to %1").arg(m_host);
        return nullptr;
    }
    SftpSessionHandle sftp(sftp_new(m_session.get()));
    if (!sftp || sftp_init(sftp.get()) != SSH_OK) {
        error = Tr::tr("SFTP is not available on %1: %2").arg(m_host, sshError());
        return nullptr;
    }
    return sftp.release();
}

bool SshSession::probe()
{
    constexpr int flushTimeoutMs = 2000;
    return isConnected() && ssh_send_ignore(m_session.get(), "") == SSH_OK &&
           ssh_blocking_flush(m_session.get(), flushTimeoutMs) == SSH_OK && isConnected();
}

bool SshSession::roundTrip()
{
    if (!isConnected())
        return false;
    ChannelHandle channel(ssh_channel_new(m_session.get()));
    const bool answered = channel && ssh_channel_open_session(channel.get()) == SSH_OK;
    if (answered)
        ssh_channel_close(channel.get());
    return answered && isConnected();
}

ExecResult SshSession::exec(const QString &command)
{
    ChannelHandle channel;
    ExecResult result = startExec(command, channel);
    if (!channel)
        return result;
    std::array<char, readBufferSize> buffer{};
    auto drain = [&](int isStderr, QByteArray &into) {
        int n = 0;
        while ((n = ssh_channel_read_nonblocking(channel.get(), buffer.data(), buffer.size(), isStderr)) > 0)
            into.append(buffer.data(), n);
        return n;
    };
    while (!ssh_channel_is_eof(channel.get())) {
        const int n = ssh_channel_read_timeout(channel.get(), buffer.data(), buffer.size(), 0, readPollMs);
        if (n > 0)
            result.out.append(buffer.data(), n);
        if (n == SSH_ERROR || drain(1, result.err) == SSH_ERROR) {
            result.error = Tr::tr("connection to %1 lost while running a command: %2").arg(m_host, sshError());
            return result;
        }
    }
    drain(0, result.out);
    drain(1, result.err);
    ssh_channel_send_eof(channel.get());
    result.exitCode = ssh_channel_get_exit_status(channel.get());
    ssh_channel_close(channel.get());
    return result;
}

} // namespace torchdeck::remote
