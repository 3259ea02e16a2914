#include "client/agentclient.h"
#include "core/appidentity.h"
#include "gui/mainwindow.h"
#include "session/agentmain.h"
#include "term/terminalfront.h"

#include <QApplication>
#include <QCoreApplication>
#include <QIcon>
#include <QLoggingCategory>
#include <memory>

namespace {

Q_LOGGING_CATEGORY(lcApp, "torchdeck.app")

QIcon applicationIcon()
{
    // The installed theme icon first (it follows the user's icon theme), else the built-in one.
    QIcon fallback;
    for (const int size : {16, 22, 24, 32, 48, 64, 128, 256})
        fallback.addFile(QStringLiteral(":/icons/hicolor/%1x%1/apps/org.torchdeck.torchdeck.png").arg(size));
    return QIcon::fromTheme(torchdeck::desktopFileName(), fallback);
}

} // namespace

int main(int argc, char *argv[])
{
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args.append(QString::fromLocal8Bit(argv[i]));
    // `torchdeck agent`: the agent itself (what a front starts, and what the login unit runs). The fronts link only
    // its client (client/); this binary holds both.
    if (args == QStringList{QStringLiteral("agent")}) {
        qputenv("QT_NO_GLIB", "1"); // as for the terminal, below
        const QCoreApplication app(argc, argv);
        torchdeck::setApplicationIdentity();
        return torchdeck::runAgentProcess();
    }
    // `torchdeck --run ID`: the window, showing that run (a notification's action starts it so).
    const bool windowWithRun = args.size() == 2 && args.constFirst() == u"--run";
    // A subcommand runs without a display: a terminal on a login node or over ssh has none.
    if (!windowWithRun && torchdeck::term::isTerminalInvocation(args)) {
        // Qt 6.4's glib event dispatcher crashed in its destructor after `logs -f` (a timer's record read
        // as a pointer, under valgrind); the terminal needs no glib integration, so use Qt's own loop.
        qputenv("QT_NO_GLIB", "1");
        const QCoreApplication app(argc, argv);
        torchdeck::setApplicationIdentity();
        // The agent is this same binary (`torchdeck agent`): a front that finds none starts it.
        torchdeck::AgentClient::setAgentProgram(QCoreApplication::applicationFilePath());
        return torchdeck::term::runTerminal(args);
    }
    QApplication app(argc, argv);
    torchdeck::setApplicationIdentity();
    torchdeck::AgentClient::setAgentProgram(QCoreApplication::applicationFilePath());
    QGuiApplication::setDesktopFileName(torchdeck::desktopFileName());
    QApplication::setWindowIcon(applicationIcon());
    const torchdeck::SettingsMigration migrated = torchdeck::migrateLegacySettings();
    if (!migrated.error.isEmpty())
        qCWarning(lcApp) << migrated.error;
    else if (migrated.moved > 0)
        qCInfo(lcApp) << "carried" << migrated.moved << "settings over from" << migrated.from;
    torchdeck::MainWindow window;
    window.show();
    if (windowWithRun)
        window.selectRun(args.at(1));
    return QApplication::exec();
}
