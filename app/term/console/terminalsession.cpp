#include "term/console/terminalsession.h"

#include <QByteArray>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sys/ioctl.h>
#include <termios.h>

namespace torchdeck::term {

namespace {

// Alternate screen, hide the cursor, no auto-wrap, clear; and the way back.
constexpr char kEnter[] = "\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J";
constexpr char kLeave[] = "\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l";

constexpr std::array<int, 9> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// Signal handlers can reach only globals: the one active session's saved state.
volatile sig_atomic_t g_active = 0;
int g_inputFd = -1;
int g_outputFd = -1;
bool g_rawInput = false;
termios g_savedTermios{};
std::array<struct sigaction, kSignals.size()> g_previous{};
bool g_atExitRegistered = false;

// Async-signal-safe: write(2) and tcsetattr(3) only.
void restoreTerminal()
{
    if (!g_active)
        return;
    g_active = 0;
    if (::write(g_outputFd, kLeave, sizeof kLeave - 1) < 0) {
        // nothing more can be done from here
    }
    if (g_rawInput)
        tcsetattr(g_inputFd, TCSANOW, &g_savedTermios);
}

void onSignal(int signal)
{
    restoreTerminal();
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
        if (kSignals[i] == signal)
            sigaction(signal, &g_previous[i], nullptr);
    }
    raise(signal); // delivered when this handler returns, to the previous handler or the default action
}

void installHandlers()
{
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
        struct sigaction action {};
        action.sa_handler = onSignal;
        sigemptyset(&action.sa_mask);
        sigaction(kSignals[i], nullptr, &g_previous[i]);
        if (g_previous[i].sa_handler != SIG_IGN) // e.g. SIGHUP under nohup: keep ignoring it
            sigaction(kSignals[i], &action, nullptr);
    }
}

void removeHandlers()
{
    for (std::size_t i = 0; i < kSignals.size(); ++i)
        sigaction(kSignals[i], &g_previous[i], nullptr);
}

bool enterRawMode(int fd)
{
    if (!isatty(fd) || tcgetattr(fd, &g_savedTermios) != 0)
        return false;
    termios raw = g_savedTermios;
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN);
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL); // Ctrl-S/Ctrl-Q reach us; Enter is CR
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    return tcsetattr(fd, TCSANOW, &raw) == 0;
}

} // namespace

TerminalSize terminalSize(int fd)
{
    winsize ws{};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0)
        return {ws.ws_col, ws.ws_row};
    TerminalSize size;
    bool ok = false;
    const int cols = qEnvironmentVariableIntValue("COLUMNS", &ok);
    if (ok && cols > 0)
        size.cols = cols;
    const int rows = qEnvironmentVariableIntValue("LINES", &ok);
    if (ok && rows > 0)
        size.rows = rows;
    return size;
}

bool writeAll(int fd, QByteArrayView bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, std::size_t(bytes.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += n;
    }
    return true;
}

TerminalSession::TerminalSession(int inputFd, int outputFd)
{
    if (g_active || !isatty(outputFd))
        return;
    g_inputFd = inputFd;
    g_outputFd = outputFd;
    g_rawInput = enterRawMode(inputFd);
    installHandlers();
    if (!g_atExitRegistered) {
        std::atexit(restoreTerminal); // exit() without unwinding still restores
        g_atExitRegistered = true;
    }
    g_active = 1;
    writeAll(outputFd, QByteArrayView(kEnter, sizeof kEnter - 1));
    m_active = true;
    m_rawInput = g_rawInput;
}

TerminalSession::~TerminalSession()
{
    if (!m_active)
        return;
    std::fflush(stdout); // a frame still in stdio's buffer belongs to the alternate screen
    restoreTerminal();
    removeHandlers();
}

} // namespace torchdeck::term
