#include "dist/worker_launcher.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ; // NOLINT: POSIX

namespace torchdeck::trainer {

namespace {

constexpr int kForwardedSignals[] = {SIGUSR1, SIGUSR2, SIGTERM, SIGINT, SIGHUP};

int exitCodeOf(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

std::vector<std::string> mergedEnvironment(const EnvMap &extra)
{
    EnvMap env = processEnvironment();
    for (const auto &[key, value] : extra)
        env[key] = value;
    std::vector<std::string> out;
    for (const auto &[key, value] : env)
        out.push_back(key + "=" + value);
    return out;
}

pid_t spawn(const std::vector<std::string> &args, const std::vector<std::string> &env, const sigset_t &childMask)
{
    std::vector<char *> argv;
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char *> envp;
    for (const std::string &e : env)
        envp.push_back(const_cast<char *>(e.c_str()));
    envp.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &childMask, nullptr);
        execve("/proc/self/exe", argv.data(), envp.data());
        std::fprintf(stderr, "torchdeck-train: cannot start a worker: %s\n", std::strerror(errno));
        _exit(127);
    }
    return pid;
}

} // namespace

EnvMap workerEnvironment(const WorkerPlan &plan, int localRank)
{
    const int world = plan.numNodes * plan.nprocPerNode;
    return {
        {"RANK", std::to_string(plan.nodeRank * plan.nprocPerNode + localRank)},
        {"WORLD_SIZE", std::to_string(world)},
        {"LOCAL_RANK", std::to_string(localRank)},
        {"LOCAL_WORLD_SIZE", std::to_string(plan.nprocPerNode)},
        {"GROUP_RANK", std::to_string(plan.nodeRank)},
        {"GROUP_WORLD_SIZE", std::to_string(plan.numNodes)},
        {"MASTER_ADDR", plan.masterAddr},
        {"MASTER_PORT", std::to_string(plan.masterPort)},
        {kWorkerMarker, "1"},
    };
}

WorkerPlan planWorkers(const LaunchEnv &nodeEnv, int nprocPerNode, bool masterPortSet, int freePort)
{
    WorkerPlan plan;
    plan.nprocPerNode = nprocPerNode;
    plan.nodeRank = nodeEnv.rank;
    plan.numNodes = nodeEnv.worldSize;
    plan.masterAddr = nodeEnv.masterAddr;
    plan.masterPort = nodeEnv.masterPort;
    if (nodeEnv.worldSize == 1 && !masterPortSet) {
        plan.masterAddr = "127.0.0.1";
        plan.masterPort = freePort;
    }
    return plan;
}

int findFreePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
        ::close(fd);
        throw std::runtime_error(std::string("cannot find a free port: ") + std::strerror(errno));
    }
    ::close(fd);
    return ntohs(addr.sin_port);
}

int launchWorkers(const WorkerPlan &plan, const std::vector<std::string> &args, int requeueExitCode)
{
    // Block the signals we wait for; the workers get the original mask back before exec.
    sigset_t waitSet;
    sigemptyset(&waitSet);
    sigaddset(&waitSet, SIGCHLD);
    for (const int s : kForwardedSignals)
        sigaddset(&waitSet, s);
    sigset_t originalMask;
    sigprocmask(SIG_BLOCK, &waitSet, &originalMask);

    std::vector<pid_t> workers;
    for (int local = 0; local < plan.nprocPerNode; ++local) {
        const pid_t pid = spawn(args, mergedEnvironment(workerEnvironment(plan, local)), originalMask);
        if (pid < 0) {
            for (const pid_t w : workers)
                kill(w, SIGKILL);
            sigprocmask(SIG_SETMASK, &originalMask, nullptr);
            throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
        }
        workers.push_back(pid);
    }
    std::printf("torchdeck-train: node %d of %d launched %d workers (ranks %d-%d, master %s:%d)\n", plan.nodeRank,
                plan.numNodes, plan.nprocPerNode, plan.nodeRank * plan.nprocPerNode,
                (plan.nodeRank + 1) * plan.nprocPerNode - 1, plan.masterAddr.c_str(), plan.masterPort);
    std::fflush(stdout);

    std::size_t running = workers.size();
    int result = 0;
    bool failed = false;
    while (running > 0) {
        siginfo_t info;
        const int sig = sigwaitinfo(&waitSet, &info);
        if (sig < 0)
            continue; // EINTR
        if (sig != SIGCHLD) {
            for (const pid_t w : workers)
                if (w > 0)
                    kill(w, sig);
            continue;
        }
        int status = 0;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            for (pid_t &w : workers) {
                if (w != pid)
                    continue;
                w = -1;
                --running;
                const int code = exitCodeOf(status);
                if (code == 0 || failed)
                    continue;
                if (code == requeueExitCode) {
                    if (result == 0)
                        result = code;
                    continue;
                }
                failed = true;
                result = code;
                std::fprintf(stderr, "torchdeck-train: a worker failed (exit code %d); stopping the others\n", code);
                for (const pid_t other : workers)
                    if (other > 0)
                        kill(other, SIGKILL);
            }
        }
    }
    sigprocmask(SIG_SETMASK, &originalMask, nullptr);
    return result;
}

} // namespace torchdeck::trainer
