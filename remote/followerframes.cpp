#include "remote/followerframes.h"

#include "remote/remotetr.h"

#include <QList>

namespace torchdeck::remote {

namespace {
constexpr qsizetype longestLine = 256;
constexpr qint64 largestData = qint64(64) * 1024 * 1024;

bool toNumber(const QByteArray &word, qint64 *value)
{
    bool ok = false;
    *value = word.toLongLong(&ok);
    return ok;
}
} // namespace

std::optional<FollowerFrame> FollowerFrames::next()
{
    if (failed())
        return std::nullopt;
    const qsizetype end = m_buffer.indexOf('\n');
    if (end < 0) {
        if (m_buffer.size() > longestLine)
            m_error = Tr::tr("the follower sent a line longer than any of its frames");
        return std::nullopt;
    }
    const QList<QByteArray> words = m_buffer.left(end).split(' ');
    qint64 n[3] = {0, 0, 0};
    bool ok = !words.isEmpty() && words.first().size() == 1;
    for (qsizetype i = 1; ok && i < words.size() && i <= 3; ++i)
        ok = toNumber(words.at(i), &n[i - 1]) && n[i - 1] >= 0;
    const char kind = ok ? words.first().at(0) : '?';
    const auto wants = [&](qsizetype count) { return ok && words.size() == count + 1; };
    FollowerFrame frame;
    frame.id = quint64(n[0]);
    if (kind == 'v' && wants(1)) {
        frame.kind = FollowerFrame::Kind::Ready;
        frame.version = int(n[0]);
    } else if (kind == 'd' && wants(3) && n[2] <= largestData) {
        if (m_buffer.size() < end + 1 + n[2])
            return std::nullopt; // its bytes are on their way
        frame.kind = FollowerFrame::Kind::Data;
        frame.offset = n[1];
        frame.bytes = m_buffer.mid(end + 1, n[2]);
        m_buffer.remove(0, end + 1 + n[2]);
        return frame;
    } else if (kind == 't' && wants(3)) {
        frame.kind = FollowerFrame::Kind::Truncated;
        frame.offset = n[1];
        frame.size = n[2];
    } else if (kind == 'r' && wants(1)) {
        frame.kind = FollowerFrame::Kind::Replaced;
    } else if (kind == 'e' && wants(1)) {
        frame.kind = FollowerFrame::Kind::Ended;
    } else if (kind == 'f' && wants(2)) {
        frame.kind = FollowerFrame::Kind::Failed;
        frame.error = int(n[1]);
    } else if (kind == 'h' && wants(2)) {
        frame.kind = FollowerFrame::Kind::Heartbeat;
        frame.looks = n[0];
        frame.sent = n[1];
        frame.id = 0;
    } else {
        m_error = Tr::tr("the follower sent an unreadable line: %1").arg(QString::fromUtf8(m_buffer.left(end)));
        return std::nullopt;
    }
    m_buffer.remove(0, end + 1);
    return frame;
}

QByteArray followerAdd(quint64 id, qint64 offset, qint64 fromEnd, bool once, int growingMs, int quietMs,
                       const QString &path)
{
    return QStringLiteral("A %1 %2 %3 %4 %5 %6 %7\n")
        .arg(id)
        .arg(offset)
        .arg(fromEnd)
        .arg(once ? 1 : 0)
        .arg(growingMs)
        .arg(quietMs)
        .arg(path)
        .toUtf8();
}

QByteArray followerPace(quint64 id, int growingMs, int quietMs)
{
    return QStringLiteral("P %1 %2 %3\n").arg(id).arg(growingMs).arg(quietMs).toUtf8();
}

QByteArray followerDrop(quint64 id)
{
    return QStringLiteral("D %1\n").arg(id).toUtf8();
}

} // namespace torchdeck::remote
