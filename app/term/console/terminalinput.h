#pragma once

#include "term/console/keydecoder.h"

#include <QObject>
#include <QTimer>
#include <unistd.h>

class QSocketNotifier;

namespace torchdeck::term {

// Keys from a terminal in raw mode (see TerminalSession), read as they come with a QSocketNotifier, and
// window size changes: SIGWINCH writes to a self-pipe that the event loop watches. A lone ESC becomes
// Escape after a short wait, as it may start a sequence split across reads. One instance at a time owns
// SIGWINCH; the previous handler comes back when it is destroyed.
class TerminalInput : public QObject {
    Q_OBJECT
public:
    explicit TerminalInput(int fd = STDIN_FILENO, QObject *parent = nullptr);
    ~TerminalInput() override;

signals:
    void key(torchdeck::term::Key key);
    void resized();
    void closed(); // end of input

private:
    void readInput();
    void readResize();
    void emitKeys(const QList<Key> &keys);

    int m_fd;
    KeyDecoder m_decoder;
    QSocketNotifier *m_input = nullptr;
    QSocketNotifier *m_resize = nullptr;
    QTimer m_escapeTimer;
};

} // namespace torchdeck::term
