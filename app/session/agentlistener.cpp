#include "session/agentlistener.h"

#include "core/agent/agentevents.h"

#include <QFile>
#include <QLoggingCategory>
#include <QSocketNotifier>
#include <QTimer>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace torchdeck {

namespace {
Q_LOGGING_CATEGORY(lcListener, "torchdeck.agent.listener")

constexpr int backlog = 128;
constexpr int noDescriptorPauseMs = 100;

QString systemError(const QString &what)
{
    return QStringLiteral("%1: %2").arg(what, QString::fromLocal8Bit(std::strerror(errno)));
}
} // namespace

AgentListener::AgentListener(QObject *parent)
    : QObject(parent)
{
}

AgentListener::~AgentListener()
{
    close();
}

QString AgentListener::listen(const QString &path)
{
    close();
    const QByteArray name = QFile::encodeName(path);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (size_t(name.size()) >= sizeof address.sun_path)
        return tr("the socket path %1 is too long").arg(path);
    std::memcpy(address.sun_path, name.constData(), size_t(name.size()));
    m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (m_fd < 0)
        return systemError(tr("cannot make a socket"));
    ::unlink(name.constData()); // a dead agent's: the caller holds the lock, so none listens there
    const mode_t mask = ::umask(0077);
    const int bound = ::bind(m_fd, reinterpret_cast<const sockaddr *>(&address), sizeof address);
    ::umask(mask);
    struct stat info {};
    if (bound != 0 || ::chmod(name.constData(), 0700) != 0 || ::listen(m_fd, backlog) != 0 ||
        ::stat(name.constData(), &info) != 0) {
        const QString error = systemError(tr("cannot listen on %1").arg(path));
        ::close(std::exchange(m_fd, -1));
        return error;
    }
    m_path = path;
    m_device = info.st_dev;
    m_inode = info.st_ino;
    m_spare = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    m_notifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &AgentListener::acceptAll);
    return {};
}

void AgentListener::close()
{
    delete std::exchange(m_notifier, nullptr);
    if (m_fd >= 0) {
        if (ownsItsPath())
            ::unlink(QFile::encodeName(m_path).constData());
        ::close(std::exchange(m_fd, -1));
    }
    if (m_spare >= 0)
        ::close(std::exchange(m_spare, -1));
}

void AgentListener::refuse(int descriptor)
{
    static const QByteArray frame = encodeAgentFrame(agent::eventMessage(
        agent::ClosingEvent{QStringLiteral("the agent is busy: too many fronts connect at once; try again"), true}));
    [[maybe_unused]] const ssize_t sent = ::send(descriptor, frame.constData(), size_t(frame.size()),
                                                 MSG_DONTWAIT | MSG_NOSIGNAL); // best effort: it closes anyway
    ::close(descriptor);
}

bool AgentListener::ownsItsPath() const
{
    struct stat info {};
    return m_fd >= 0 && ::stat(QFile::encodeName(m_path).constData(), &info) == 0 && info.st_dev == m_device &&
           info.st_ino == m_inode;
}

void AgentListener::acceptAll()
{
    for (;;) {
        const int fd = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) {
            emit accepted(fd);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
            continue;
        if ((errno == EMFILE || errno == ENFILE) && refuseOne())
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            qCWarning(lcListener).noquote() << systemError(QStringLiteral("accept"));
        return;
    }
}

bool AgentListener::refuseOne()
{
    if (m_spare < 0)
        m_spare = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (m_spare < 0) {
        // Not even the spare: wait a little for a descriptor to close rather than spin on the ready socket.
        m_notifier->setEnabled(false);
        QTimer::singleShot(noDescriptorPauseMs, this, [this] {
            if (m_notifier)
                m_notifier->setEnabled(true);
        });
        return false;
    }
    ::close(std::exchange(m_spare, -1));
    const int fd = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0)
        refuse(fd);
    m_spare = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (m_refused++ % 100 == 0)
        qCWarning(lcListener) << "out of descriptors: refused a front" << m_refused << "time(s) so far";
    return true;
}

} // namespace torchdeck
