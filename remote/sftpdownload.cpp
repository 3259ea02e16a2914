#include "remote/sftpdownload.h"

#include "remote/remotetr.h"

#include <QByteArray>
#include <fcntl.h>
#include <unistd.h>

namespace torchdeck::remote {

namespace {
// Requests of 64 KiB, 64 in flight: OpenSSH's sftp asks 32 KiB 64 at a time; larger requests halve the round trips
// and stay well below sftp-server's 256 KiB limit on a read.
constexpr quint32 requestBytes = 64 * 1024;
constexpr std::size_t requestsInFlight = 64;
} // namespace

SftpDownload::SftpDownload(sftp_session sftp, QString remotePath, QString localPath, qint64 bytes)
    : m_sftp(sftp)
    , m_remotePath(std::move(remotePath))
    , m_local(localPath)
    , m_total(bytes)
{
}

SftpDownload::~SftpDownload() = default;

QString SftpDownload::sftpError(const QString &what) const
{
    return Tr::tr("%1 (SFTP error %2: %3)")
        .arg(what)
        .arg(sftp_get_error(m_sftp))
        .arg(QString::fromUtf8(ssh_get_error(m_sftp->session)));
}

QString SftpDownload::open()
{
    if (!m_local.open(QIODevice::ReadWrite | QIODevice::Append))
        return Tr::tr("cannot write %1: %2").arg(m_local.fileName(), m_local.errorString());
    m_done = m_local.size();
    if (m_done > m_total) { // not the start of this file: start again
        if (!m_local.resize(0))
            return Tr::tr("cannot write %1: %2").arg(m_local.fileName(), m_local.errorString());
        m_done = 0;
    }
    m_resumedAt = m_asked = m_done;
    const QByteArray path = m_remotePath.toUtf8();
    m_remote.reset(sftp_open(m_sftp, path.constData(), O_RDONLY, 0));
    if (!m_remote)
        return sftpError(Tr::tr("cannot open %1 on the cluster").arg(m_remotePath));
    if (sftp_seek64(m_remote.get(), quint64(m_done)) != 0)
        return sftpError(Tr::tr("cannot seek in %1").arg(m_remotePath));
    sftp_file_set_nonblocking(m_remote.get());
    return {};
}

bool SftpDownload::fill(qint64 until, QString &error)
{
    while (m_inFlight.size() < requestsInFlight && m_asked < until) {
        const auto length = quint32(std::min<qint64>(requestBytes, m_total - m_asked));
        const int id = sftp_async_read_begin(m_remote.get(), length);
        if (id < 0) {
            error = sftpError(Tr::tr("reading %1 failed").arg(m_remotePath));
            return false;
        }
        m_inFlight.push_back({quint32(id), m_asked, length});
        m_asked += length;
    }
    return true;
}

void SftpDownload::drain()
{
    QByteArray sink(requestBytes, Qt::Uninitialized);
    sftp_file_set_blocking(m_remote.get());
    for (const Request &request : m_inFlight)
        sftp_async_read(m_remote.get(), sink.data(), request.length, request.id);
    sftp_file_set_nonblocking(m_remote.get());
    m_inFlight.clear();
}

SftpDownload::Step SftpDownload::step(qint64 sliceBytes, int waitMs, QString &error)
{
    const qint64 until = std::min(m_total, m_done + sliceBytes);
    const qint64 before = m_done;
    QByteArray buffer(requestBytes, Qt::Uninitialized);
    if (!fill(until, error))
        return Step::Failed;
    while (!m_inFlight.empty() && m_done < until) {
        const Request request = m_inFlight.front();
        int n = sftp_async_read(m_remote.get(), buffer.data(), request.length, request.id);
        if (n == SSH_AGAIN && m_done == before && waitMs > 0) {
            // Wakes as soon as bytes arrive: a sleep of the same length would cost the transfer its rate.
            ssh_channel_poll_timeout(m_sftp->channel, waitMs, 0);
            waitMs = 0;
            n = sftp_async_read(m_remote.get(), buffer.data(), request.length, request.id);
        }
        if (n == SSH_AGAIN)
            break; // asked for again at the next step: libssh keeps the request
        m_inFlight.pop_front();
        if (n < 0) {
            error = sftpError(Tr::tr("reading %1 failed").arg(m_remotePath));
            return Step::Failed;
        }
        if (n == 0) { // end of file before `total`: it shrank since it was checksummed
            error = Tr::tr("%1 ended at %2 bytes, not %3: it changed on the cluster")
                        .arg(m_remotePath)
                        .arg(m_done)
                        .arg(m_total);
            return Step::Failed;
        }
        if (m_local.write(buffer.constData(), n) != n) {
            error = Tr::tr("cannot write %1: %2").arg(m_local.fileName(), m_local.errorString());
            return Step::Failed;
        }
        m_done += n;
        if (quint32(n) < request.length) { // a short read: what follows is asked again from here
            drain();
            m_asked = m_done;
            if (sftp_seek64(m_remote.get(), quint64(m_done)) != 0) {
                error = sftpError(Tr::tr("cannot seek in %1").arg(m_remotePath));
                return Step::Failed;
            }
        }
        if (!fill(std::min(m_total, m_done + sliceBytes), error))
            return Step::Failed;
    }
    if (complete()) {
        if (!m_local.flush() || ::fsync(m_local.handle()) != 0) {
            error = Tr::tr("cannot write %1: %2").arg(m_local.fileName(), m_local.errorString());
            return Step::Failed;
        }
        m_local.close();
        m_remote.reset();
    }
    return m_done > before || complete() ? Step::Moved : Step::Waiting;
}

} // namespace torchdeck::remote
