#include "gui/mainwindow.h"
#include "term/terminalfront.h"

#include <QApplication>
#include <QCoreApplication>
#include <memory>

int main(int argc, char *argv[])
{
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args.append(QString::fromLocal8Bit(argv[i]));
    // A subcommand runs without a display: a terminal on a login node or over ssh has none.
    if (torchdeck::term::isTerminalInvocation(args)) {
        // Qt 6.4's glib event dispatcher crashed in its destructor after `logs -f` (a timer's record read
        // as a pointer, under valgrind); the terminal needs no glib integration, so use Qt's own loop.
        qputenv("QT_NO_GLIB", "1");
        const QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("torchdeck"));
        return torchdeck::term::runTerminal(args);
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("torchdeck"));
    torchdeck::MainWindow window;
    window.show();
    return QApplication::exec();
}
