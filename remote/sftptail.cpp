#include "remote/sftptail.h"

#include "remote/remotetr.h"

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <utility>

namespace torchdeck::remote {

namespace {

constexpr qint64 headBytes = 64;
constexpr qint64 revalidateEveryMs = 1000;

// Reads up to `count` bytes at `offset`; an empty result with ok=false is an SFTP failure.
QByteArray readAt(sftp_file file, qint64 offset, qint64 count, bool &ok, int *requests)
{
    QByteArray data;
    ok = sftp_seek64(file, quint64(offset)) == 0;
    while (ok && data.size() < count) {
        char buffer[32 * 1024];
        const qint64 want = std::min<qint64>(count - data.size(), qint64(sizeof buffer));
        ++*requests;
        const ssize_t n = sftp_read(file, buffer, size_t(want));
        if (n < 0)
            ok = false;
        if (n <= 0)
            break;
        data.append(buffer, qsizetype(n));
    }
    return data;
}

TailPoll failure(sftp_session sftp, qint64 offset, const QString &what)
{
    const int code = sftp_get_error(sftp);
    const bool lost = code == SSH_FX_CONNECTION_LOST || code == SSH_FX_NO_CONNECTION || code == SSH_FX_OK;
    return {lost ? TailPoll::Kind::ConnectionLost : TailPoll::Kind::Error,
            offset,
            {},
            Tr::tr("%1 (SFTP error %2)").arg(what).arg(code),
            0};
}

} // namespace

TailPoll SftpTail::restart(const QString &why)
{
    m_offset = 0;
    m_fromEnd = 0;
    m_head.clear();
    return {TailPoll::Kind::Reset, 0, {}, why, 0};
}

TailPoll SftpTail::truncated(qint64 size)
{
    return restart(Tr::tr("%1 shrank from %2 to %3 bytes: truncated, reading it again from the start")
                       .arg(m_path)
                       .arg(m_offset)
                       .arg(size));
}

TailPoll SftpTail::replaced()
{
    return restart(Tr::tr("%1 was replaced by another file: reading it from the start").arg(m_path));
}

void SftpTail::followed(qint64 offset, const QByteArray &bytes)
{
    m_fromEnd = 0;
    m_offset = offset + bytes.size();
    m_head.clear(); // the first poll over SFTP, should it come to that, takes them anew
}

TailPoll SftpTail::poll(sftp_session sftp, qint64 maxBytes)
{
    int requests = 0;
    TailPoll result = pollCounting(sftp, maxBytes, &requests);
    result.requests = requests;
    return result;
}

TailPoll SftpTail::pollCounting(sftp_session sftp, qint64 maxBytes, int *requests)
{
    const QByteArray path = m_path.toUtf8();
    // NFS (and Lustre, GPFS) clients may answer a stat with a size cached on the login node for seconds, while
    // a compute node writes; an open revalidates it (close-to-open consistency). So once a second at most the
    // size comes from a fresh open, else from a stat.
    const qint64 now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    SftpFileHandle file;
    SftpAttributesHandle attributes;
    if (now - m_openedMs >= revalidateEveryMs) {
        ++*requests; // the open; the close goes without an answer waited for
        file.reset(sftp_open(sftp, path.constData(), O_RDONLY, 0));
        if (!file && sftp_get_error(sftp) == SSH_FX_NO_SUCH_FILE)
            return {TailPoll::Kind::Missing, m_offset, {}, {}, 0};
        if (!file)
            return failure(sftp, m_offset, Tr::tr("cannot open %1").arg(m_path));
        m_openedMs = now;
        ++*requests;
        attributes.reset(sftp_fstat(file.get()));
    } else {
        ++*requests;
        attributes.reset(sftp_stat(sftp, path.constData()));
    }
    if (!attributes) {
        if (sftp_get_error(sftp) == SSH_FX_NO_SUCH_FILE)
            return {TailPoll::Kind::Missing, m_offset, {}, {}, 0};
        return failure(sftp, m_offset, Tr::tr("cannot stat %1").arg(m_path));
    }
    const auto size = qint64(attributes->size);
    if (m_fromEnd > 0)
        m_offset = std::max<qint64>(0, size - std::exchange(m_fromEnd, 0));
    if (size < m_offset)
        return truncated(size);
    const qint64 headSize = std::min(size, headBytes);
    if (size == m_offset && m_head.size() == headSize)
        return {};
    if (!file) {
        ++*requests; // each read below counts too
        file.reset(sftp_open(sftp, path.constData(), O_RDONLY, 0));
        if (!file)
            return failure(sftp, m_offset, Tr::tr("cannot open %1").arg(m_path));
        m_openedMs = now;
    }
    bool ok = true;
    const QByteArray head = readAt(file.get(), 0, headSize, ok, requests);
    if (ok && !head.startsWith(m_head))
        return replaced();
    const QByteArray bytes =
        ok ? readAt(file.get(), m_offset, std::min(size - m_offset, maxBytes), ok, requests) : QByteArray();
    if (!ok)
        return failure(sftp, m_offset, Tr::tr("cannot read %1").arg(m_path));
    m_head = head;
    TailPoll result{bytes.isEmpty() ? TailPoll::Kind::Nothing : TailPoll::Kind::Data, m_offset, bytes, {}, 0};
    m_offset += bytes.size();
    return result;
}

} // namespace torchdeck::remote
