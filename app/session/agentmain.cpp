#include "session/agentmain.h"

#include "session/agent.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QTextStream>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace torchdeck {

namespace {
int signalPipe[2] = {-1, -1};

void onSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(signalPipe[1], &byte, 1);
}
} // namespace

int runAgentProcess()
{
    Agent agent;
    QString error;
    if (!agent.start(&error)) {
        if (error.isEmpty())
            return 0; // another agent serves this store
        QTextStream(stderr) << "torchdeck agent: " << error << '\n';
        return 1;
    }
    // SIGTERM (systemd, kill) and SIGINT (Ctrl-C in a terminal): stop as `torchdeck agent stop` does.
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, signalPipe) != 0)
        return 1;
    QSocketNotifier notifier(signalPipe[0], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &agent, [&agent] {
        char byte = 0;
        [[maybe_unused]] const ssize_t read = ::read(signalPipe[0], &byte, 1);
        agent.stop(QStringLiteral("signalled"));
    });
    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);
    std::signal(SIGHUP, SIG_IGN); // a closed terminal does not end the agent
    QObject::connect(&agent, &Agent::stopped, qApp, &QCoreApplication::quit);
    return QCoreApplication::exec();
}

} // namespace torchdeck
