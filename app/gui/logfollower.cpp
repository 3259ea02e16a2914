#include "gui/logfollower.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"

namespace torchdeck {

namespace {
constexpr int retryMs = 2000;

// The last `lines` lines of a text, as the agent's read of a log's end gives them.
QByteArray lastLines(const QByteArray &text, int lines)
{
    qsizetype at = text.size();
    if (text.endsWith('\n'))
        --at;
    for (int seen = 0; at > 0; --at)
        if (text.at(at - 1) == '\n' && ++seen == lines)
            break;
    return text.mid(at);
}
} // namespace

LogFollower::LogFollower(QObject *parent)
    : QObject(parent)
{
    m_retry.setSingleShot(true);
    m_retry.setInterval(retryMs);
    connect(&m_retry, &QTimer::timeout, this, &LogFollower::startStream);
    connect(&m_stream, &LogStream::text, this, [this](const QString &latest) {
        m_stale = false;
        emit text(latest);
    });
    connect(&m_stream, &LogStream::failed, this, [this](const QString &error) {
        emit failed(error);
        m_retry.start();
    });
}

void LogFollower::follow(AgentClient *agent, const QString &cluster, const QString &path, bool growing,
                         const std::optional<QByteArray> &kept)
{
    if (kept != m_kept) {
        m_kept = kept;
        m_stale = true;
    }
    if (agent != m_agent || cluster != m_cluster || path != m_path) {
        ++m_generation;
        m_reading = false;
        m_agent = agent;
        m_cluster = cluster;
        m_path = path;
        m_stale = true;
        m_stream.stop();
    }
    if (m_growing && !growing)
        m_stale = true; // what the job wrote last
    m_growing = growing;
    apply();
}

void LogFollower::setActive(bool active)
{
    m_active = active;
    apply();
}

void LogFollower::apply()
{
    const bool followable = m_agent && !m_path.isEmpty() && m_active;
    m_streaming = followable && m_growing;
    if (m_streaming) {
        if (!m_stream.isRunning() && !m_retry.isActive())
            startStream();
        return;
    }
    m_retry.stop();
    m_stream.stop();
    if (followable && m_stale)
        readNow();
}

void LogFollower::startStream()
{
    if (!m_streaming || m_stream.isRunning())
        return;
    if (m_agent->state(m_cluster) != ConnectionState::Connected)
        return m_retry.start();
    m_stream.start(m_agent, m_cluster, m_path, m_lines);
}

void LogFollower::readNow()
{
    if (m_stream.isRunning() && !m_stale)
        return emit text(m_stream.latest());
    if (m_kept && !m_growing) { // no cluster needed
        m_stale = false;
        return emit text(QString::fromUtf8(lastLines(*m_kept, m_lines)));
    }
    if (m_reading || !m_agent || m_path.isEmpty() || m_agent->state(m_cluster) != ConnectionState::Connected)
        return;
    m_reading = true;
    const quint64 generation = m_generation;
    SessionOperation *read = m_agent->readFile(m_cluster, m_path, m_lines);
    auto bytes = std::make_shared<QByteArray>();
    onEvent<agent::DataEvent>(read, this, [bytes](const agent::DataEvent &data) { *bytes += data.bytes; });
    connect(read, &SessionOperation::finished, this, [this, generation, bytes] {
        if (generation != m_generation)
            return;
        m_reading = false;
        m_stale = false;
        emit text(QString::fromUtf8(*bytes));
    });
    connect(read, &SessionOperation::failed, this, [this, generation](const QString &error) {
        if (generation != m_generation)
            return;
        m_reading = false;
        emit failed(error);
    });
}

} // namespace torchdeck
