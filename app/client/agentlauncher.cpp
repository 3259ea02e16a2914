#include "client/agentlauncher.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QFile>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace torchdeck {

namespace {
// Only async-signal-safe calls between fork and exec: the caller may run threads.
[[noreturn]] void becomeAgent(const char *program, const char *log)
{
    if (setsid() < 0)
        _exit(127);
    // The second fork: the agent is no session leader (it can never get a terminal back) and no child of the
    // front (which would otherwise have to reap it).
    const pid_t agent = fork();
    if (agent != 0)
        _exit(agent < 0 ? 127 : 0);
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || out < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
        _exit(127);
    close_range(3, ~0U, 0);
    char agentArgument[] = "agent";
    char *const argv[] = {const_cast<char *>(program), agentArgument, nullptr};
    execv(program, argv);
    _exit(127);
}
} // namespace

QString startAgentProcess(const QString &program, const QString &logFile)
{
    const QByteArray programPath = QFile::encodeName(program);
    const QByteArray logPath = QFile::encodeName(logFile);
    const pid_t child = fork();
    if (child < 0)
        return QCoreApplication::translate("torchdeck::Agent", "cannot start the agent: %1")
            .arg(QString::fromLocal8Bit(std::strerror(errno)));
    if (child == 0)
        becomeAgent(programPath.constData(), logPath.constData());
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return QCoreApplication::translate("torchdeck::Agent", "cannot start the agent %1 (see %2)")
            .arg(program, logFile);
    return {};
}

} // namespace torchdeck
