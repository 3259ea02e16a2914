#pragma once

#include <QByteArrayView>
#include <unistd.h>

namespace torchdeck::term {

struct TerminalSize {
    int cols = 80;
    int rows = 24;
};

// The size of the terminal on `fd` (TIOCGWINSZ); else $COLUMNS and $LINES; else 80 x 24.
TerminalSize terminalSize(int fd = STDOUT_FILENO);

// Writes everything, retrying on EINTR and short writes; false on error.
bool writeAll(int fd, QByteArrayView bytes);

// Full-screen mode for the life of the object: the alternate screen, cursor hidden, no line wrap, and the
// input terminal without echo, line buffering or signal keys (Ctrl-C arrives as a key). Everything is put
// back by the destructor, at exit(), and on SIGINT, SIGTERM, SIGHUP, SIGQUIT and crash signals, whose
// handlers restore the terminal, then re-raise the signal to the handler that was there before.
// One session at a time: a second one, or one whose output is not a terminal, is inactive and does nothing.
class TerminalSession {
public:
    explicit TerminalSession(int inputFd = STDIN_FILENO, int outputFd = STDOUT_FILENO);
    ~TerminalSession();
    TerminalSession(const TerminalSession &) = delete;
    TerminalSession &operator=(const TerminalSession &) = delete;

    bool isActive() const { return m_active; }
    // Whether keys can be read: the input is a terminal in raw mode.
    bool hasRawInput() const { return m_rawInput; }

private:
    bool m_active = false;
    bool m_rawInput = false;
};

} // namespace torchdeck::term
