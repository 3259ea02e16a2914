#include "client/logstream.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"

#include <QCborMap>

namespace torchdeck {

namespace {
constexpr qint64 bytesPerLineGuess = 256; // how far before the end to start for the lines shown
constexpr qint64 mostStartBytes = qint64(256) * 1024;
} // namespace

LogStream::LogStream(QObject *parent)
    : QObject(parent)
{
    m_emit.setSingleShot(true);
    m_emit.setInterval(0);
    connect(&m_emit, &QTimer::timeout, this, [this] { emit text(QString::fromUtf8(m_latest)); });
}

LogStream::~LogStream()
{
    stop();
}

void LogStream::start(AgentClient *agent, const QString &cluster, const QString &path, int lines)
{
    stop();
    m_path = path;
    m_lines = std::max(1, lines);
    m_latest.clear();
    m_started = false;
    SessionOperation *follow =
        agent->followFile(cluster, path, 0, std::min(mostStartBytes, bytesPerLineGuess * m_lines));
    m_follow = follow;
    onEvent<agent::DataEvent>(follow, this, [this, follow](const agent::DataEvent &data) {
        if (follow == m_follow)
            append(data.offset, data.bytes);
    });
    onEvent<agent::ResetEvent>(follow, this, [this, follow](const agent::ResetEvent &) {
        if (follow != m_follow)
            return;
        m_latest.clear(); // replaced or truncated: read again from its start
        m_started = true;
    });
    connect(follow, &SessionOperation::failed, this, [this, follow](const QString &error) {
        if (follow != m_follow)
            return;
        m_follow.clear();
        emit failed(error);
    });
}

void LogStream::stop()
{
    m_emit.stop();
    if (SessionOperation *follow = m_follow.data()) {
        m_follow.clear();
        follow->stop();
    }
}

void LogStream::append(qint64 offset, const QByteArray &bytes)
{
    qsizetype from = 0;
    if (!m_started && offset > 0) { // started before the end, inside a line: from the next one
        const qsizetype newline = bytes.indexOf('\n');
        if (newline < 0)
            return;
        from = newline + 1;
    }
    m_started = true;
    m_latest += QByteArrayView(bytes).sliced(from);
    // Keep the last m_lines lines (the one being written counts): cut after the newline before the oldest.
    qsizetype at = m_latest.endsWith('\n') ? m_latest.size() - 1 : m_latest.size();
    for (int seen = 0; at > 0;) {
        const qsizetype newline = m_latest.lastIndexOf('\n', at - 1);
        if (newline < 0)
            break;
        if (++seen == m_lines) {
            m_latest.remove(0, newline + 1);
            break;
        }
        at = newline;
    }
    m_emit.start();
}

} // namespace torchdeck
