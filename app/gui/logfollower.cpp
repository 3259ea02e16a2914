#include "gui/logfollower.h"

#include "core/shellquote.h"
#include "remote/connection.h"

namespace torchdeck {

namespace {
constexpr int defaultIntervalMs = 2000;

// A path from the store may start with ~/ (the profile's work directory): leave that to the shell.
QString quotedPath(const QString &path)
{
    if (path.startsWith(QStringLiteral("~/")))
        return QString(QStringLiteral("~/") + shellQuote(path.mid(2)));
    return shellQuote(path);
}
} // namespace

LogFollower::LogFollower(QObject *parent)
    : QObject(parent)
{
    m_timer.setInterval(defaultIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LogFollower::readNow);
}

void LogFollower::follow(remote::Connection *connection, const QString &path)
{
    ++m_generation;
    m_reading = false;
    m_connection = connection;
    m_path = path;
    if (!connection || path.isEmpty()) {
        m_timer.stop();
        return;
    }
    m_timer.start();
    readNow();
}

void LogFollower::setActive(bool active)
{
    if (!active)
        m_timer.stop();
    else if (m_connection && !m_path.isEmpty() && !m_timer.isActive())
        m_timer.start();
}

void LogFollower::readNow()
{
    if (m_reading || !m_connection || m_path.isEmpty() || m_connection->state() != remote::ConnectionState::Connected)
        return;
    m_reading = true;
    const quint64 generation = m_generation;
    remote::RemoteCommand *command =
        m_connection->run(QStringLiteral("tail -n %1 -- %2 2>&1 || true").arg(m_lines).arg(quotedPath(m_path)));
    connect(command, &remote::RemoteCommand::finished, this, [this, generation](const remote::ExecResult &result) {
        if (generation != m_generation)
            return;
        m_reading = false;
        emit text(QString::fromUtf8(result.out));
    });
    connect(command, &remote::RemoteCommand::failed, this, [this, generation](const QString &error) {
        if (generation != m_generation)
            return;
        m_reading = false;
        emit failed(error);
    });
}

} // namespace torchdeck
