#include "term/console/terminalinput.h"

#include <QSocketNotifier>
#include <array>
#include <cerrno>
#include <csignal>
#include <fcntl.h>

namespace torchdeck::term {

namespace {

constexpr int kEscapeWaitMs = 50; // terminals send a whole sequence at once; a person cannot type that fast
constexpr std::size_t kReadSize = 256;

int g_resizePipe[2] = {-1, -1};
struct sigaction g_previousWinch {};

void onWinch(int)
{
    const int saved = errno;
    const char byte = 1;
    if (::write(g_resizePipe[1], &byte, 1) < 0) {
        // the pipe is full: a resize is pending anyway
    }
    errno = saved;
}

bool openResizePipe()
{
    if (g_resizePipe[0] >= 0 || pipe2(g_resizePipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return false;
    struct sigaction action {};
    action.sa_handler = onWinch;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGWINCH, &action, &g_previousWinch);
    return true;
}

void closeResizePipe()
{
    sigaction(SIGWINCH, &g_previousWinch, nullptr);
    ::close(g_resizePipe[0]);
    ::close(g_resizePipe[1]);
    g_resizePipe[0] = g_resizePipe[1] = -1;
}

} // namespace

TerminalInput::TerminalInput(int fd, QObject *parent)
    : QObject(parent)
    , m_fd(fd)
{
    m_escapeTimer.setSingleShot(true);
    m_escapeTimer.setInterval(kEscapeWaitMs);
    connect(&m_escapeTimer, &QTimer::timeout, this, [this] { emitKeys(m_decoder.flush()); });
    m_input = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    connect(m_input, &QSocketNotifier::activated, this, &TerminalInput::readInput);
    if (openResizePipe()) {
        m_resize = new QSocketNotifier(g_resizePipe[0], QSocketNotifier::Read, this);
        connect(m_resize, &QSocketNotifier::activated, this, &TerminalInput::readResize);
    }
}

TerminalInput::~TerminalInput()
{
    if (m_resize) {
        delete m_resize; // before its descriptor closes
        closeResizePipe();
    }
}

void TerminalInput::readInput()
{
    std::array<char, kReadSize> buffer{};
    const ssize_t n = ::read(m_fd, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        m_input->setEnabled(false);
        emitKeys(m_decoder.flush());
        emit closed();
        return;
    }
    emitKeys(m_decoder.feed(QByteArrayView(buffer.data(), n)));
    if (m_decoder.hasPending())
        m_escapeTimer.start();
    else
        m_escapeTimer.stop();
}

void TerminalInput::readResize()
{
    std::array<char, 64> drain{};
    while (::read(g_resizePipe[0], drain.data(), drain.size()) > 0) {
    }
    emit resized();
}

void TerminalInput::emitKeys(const QList<Key> &keys)
{
    for (const Key &k : keys)
        emit key(k);
}

} // namespace torchdeck::term
