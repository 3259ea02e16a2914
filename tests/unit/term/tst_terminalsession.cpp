#include "term/console/terminalinput.h"
#include "term/console/terminalsession.h"
#include "testmain.h"

#include <QSignalSpy>
#include <QTest>
#include <csignal>
#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>

using namespace torchdeck::term;

namespace {

// A pseudo-terminal pair: the test plays the terminal emulator on the master side.
class Pty {
public:
    Pty()
    {
        winsize size{};
        size.ws_col = 132;
        size.ws_row = 43;
        m_ok = openpty(&m_master, &m_slave, nullptr, nullptr, &size) == 0;
    }
    ~Pty()
    {
        ::close(m_master);
        ::close(m_slave);
    }
    bool ok() const { return m_ok; }
    int master() const { return m_master; }
    int slave() const { return m_slave; }

    termios mode() const
    {
        termios t{};
        tcgetattr(m_slave, &t);
        return t;
    }
    // What the program wrote so far, as the terminal received it.
    QByteArray drain() const
    {
        QByteArray out;
        const int flags = fcntl(m_master, F_GETFL);
        fcntl(m_master, F_SETFL, flags | O_NONBLOCK);
        char buf[4096];
        ssize_t n = 0;
        while ((n = ::read(m_master, buf, sizeof buf)) > 0)
            out.append(buf, n);
        fcntl(m_master, F_SETFL, flags);
        return out;
    }
    void type(const QByteArray &bytes) const { QVERIFY(writeAll(m_master, bytes)); }

private:
    int m_master = -1;
    int m_slave = -1;
    bool m_ok = false;
};

constexpr char kEnterAlternate[] = "\x1b[?1049h";
constexpr char kLeaveAlternate[] = "\x1b[?1049l";

bool cooked(const termios &t)
{
    return (t.c_lflag & ECHO) && (t.c_lflag & ICANON) && (t.c_lflag & ISIG);
}

} // namespace

class TestTerminalSession : public QObject {
    Q_OBJECT
private slots:
    void sizeFromTheTerminal();
    void sizeFallsBackToEnvironment();
    void sessionEntersAndRestores();
    void notATerminalDoesNothing();
    void oneSessionAtATime();
    void signalsRestoreThenKill_data();
    void signalsRestoreThenKill();
    void keysAndResizesArrive();
    void loneEscapeAfterAWait();
};

void TestTerminalSession::sizeFromTheTerminal()
{
    Pty pty;
    QVERIFY(pty.ok());
    const TerminalSize size = terminalSize(pty.slave());
    QCOMPARE(size.cols, 132);
    QCOMPARE(size.rows, 43);
}

void TestTerminalSession::sizeFallsBackToEnvironment()
{
    int fds[2];
    QCOMPARE(pipe(fds), 0);
    qputenv("COLUMNS", "100");
    qputenv("LINES", "30");
    TerminalSize size = terminalSize(fds[1]);
    QCOMPARE(size.cols, 100);
    QCOMPARE(size.rows, 30);
    qputenv("COLUMNS", "junk");
    qunsetenv("LINES");
    size = terminalSize(fds[1]);
    QCOMPARE(size.cols, 80);
    QCOMPARE(size.rows, 24);
    qunsetenv("COLUMNS");
    ::close(fds[0]);
    ::close(fds[1]);
}

void TestTerminalSession::sessionEntersAndRestores()
{
    Pty pty;
    QVERIFY(pty.ok());
    QVERIFY(cooked(pty.mode()));
    {
        TerminalSession session(pty.slave(), pty.slave());
        QVERIFY(session.isActive());
        QVERIFY(session.hasRawInput());
        const termios raw = pty.mode();
        QVERIFY(!(raw.c_lflag & (ECHO | ICANON | ISIG)));
        const QByteArray entered = pty.drain();
        QVERIFY(entered.contains(kEnterAlternate));
        QVERIFY(entered.contains("\x1b[?25l"));
    }
    QVERIFY(cooked(pty.mode()));
    const QByteArray left = pty.drain();
    QVERIFY(left.contains(kLeaveAlternate));
    QVERIFY(left.contains("\x1b[?25h"));
}

void TestTerminalSession::notATerminalDoesNothing()
{
    int fds[2];
    QCOMPARE(pipe(fds), 0);
    {
        TerminalSession session(fds[0], fds[1]);
        QVERIFY(!session.isActive());
    }
    ::close(fds[1]);
    char c = 0;
    QCOMPARE(::read(fds[0], &c, 1), ssize_t(0)); // nothing was written
    ::close(fds[0]);
}

void TestTerminalSession::oneSessionAtATime()
{
    Pty pty;
    TerminalSession first(pty.slave(), pty.slave());
    TerminalSession second(pty.slave(), pty.slave());
    QVERIFY(first.isActive());
    QVERIFY(!second.isActive());
}

void TestTerminalSession::signalsRestoreThenKill_data()
{
    QTest::addColumn<int>("signal");
    QTest::addRow("SIGINT") << SIGINT;
    QTest::addRow("SIGTERM") << SIGTERM;
    QTest::addRow("SIGHUP") << SIGHUP;
    QTest::addRow("SIGSEGV") << SIGSEGV;
    QTest::addRow("SIGABRT") << SIGABRT;
}

void TestTerminalSession::signalsRestoreThenKill()
{
    QFETCH(int, signal);
    Pty pty;
    QVERIFY(pty.ok());
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        struct rlimit noCore {};
        setrlimit(RLIMIT_CORE, &noCore);
        std::signal(signal, SIG_DFL); // Qt Test's crash handler would print a report
        TerminalSession session(pty.slave(), pty.slave());
        raise(signal);
        _exit(session.isActive() ? 3 : 4); // not reached: the signal's default action ends the process
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY2(WIFSIGNALED(status), qPrintable(QString::number(status)));
    QCOMPARE(WTERMSIG(status), signal);
    QVERIFY(cooked(pty.mode()));
    const QByteArray written = pty.drain();
    QVERIFY(written.contains(kEnterAlternate));
    QVERIFY(written.indexOf(kLeaveAlternate) > written.indexOf(kEnterAlternate));
}

void TestTerminalSession::keysAndResizesArrive()
{
    Pty pty;
    TerminalSession session(pty.slave(), pty.slave());
    TerminalInput input(pty.slave());
    QSignalSpy keys(&input, &TerminalInput::key);
    QSignalSpy resized(&input, &TerminalInput::resized);
    pty.type("\x1b[Aq\x03");
    QTRY_COMPARE(keys.size(), 3);
    QCOMPARE(keys[0][0].value<Key>(), Key{Key::Up});
    QCOMPARE(keys[1][0].value<Key>(), Key::character('q'));
    QCOMPARE(keys[2][0].value<Key>(), Key{Key::CtrlC});

    winsize size{};
    size.ws_col = 90;
    size.ws_row = 20;
    ioctl(pty.master(), TIOCSWINSZ, &size);
    raise(SIGWINCH);
    QTRY_COMPARE(resized.size(), 1);
    QCOMPARE(terminalSize(pty.slave()).cols, 90);
}

void TestTerminalSession::loneEscapeAfterAWait()
{
    Pty pty;
    TerminalSession session(pty.slave(), pty.slave());
    TerminalInput input(pty.slave());
    QSignalSpy keys(&input, &TerminalInput::key);
    pty.type("\x1b");
    QTest::qWait(10);
    QCOMPARE(keys.size(), 0); // might still be the start of a sequence
    QTRY_COMPARE(keys.size(), 1);
    QCOMPARE(keys[0][0].value<Key>(), Key{Key::Escape});
}

TORCHDECK_TEST_MAIN(TestTerminalSession)
#include "tst_terminalsession.moc"
