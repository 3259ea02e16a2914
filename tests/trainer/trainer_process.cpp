#include "trainer_process.h"

#include "checkpoint/checkpoint_files.h"
#include "checkpoint/train_state.h"
#include "dist/launch_env.h"
#include "dist/worker_launcher.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace torchdeck::trainer::test {

namespace {

bool isLauncherVariable(const std::string &name)
{
    static const char *exact[] = {
        "RANK",        "WORLD_SIZE",  "LOCAL_RANK",       "LOCAL_WORLD_SIZE", "GROUP_RANK",  "GROUP_WORLD_SIZE",
        "MASTER_ADDR", "MASTER_PORT", "TORCHDECK_WORKER", "PBS_NODEFILE",     "PBS_VNODENUM"};
    for (const char *e : exact)
        if (name == e)
            return true;
    return name.rfind("SLURM_", 0) == 0 || name.rfind("OMPI_", 0) == 0 || name.rfind("PMIX_", 0) == 0;
}

} // namespace

Args concat(Args a, const Args &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

pid_t startTrainer(const Args &args, const Env &env, const std::string &logPath)
{
    std::vector<std::string> argv = {TORCHDECK_TRAIN_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> envs;
    for (const auto &[k, v] : processEnvironment())
        if (!isLauncherVariable(k) && env.count(k) == 0)
            envs.push_back(k + "=" + v);
    for (const auto &[k, v] : env)
        envs.push_back(k + "=" + v);
    std::vector<char *> av, ev;
    for (auto &a : argv)
        av.push_back(a.data());
    av.push_back(nullptr);
    for (auto &e : envs)
        ev.push_back(e.data());
    ev.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            ::close(fd);
        }
        execve(av[0], av.data(), ev.data());
        _exit(127);
    }
    if (pid < 0)
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    return pid;
}

int waitTrainer(pid_t pid, int timeoutSeconds)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    while (true) {
        int status = 0;
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (r < 0)
            return -2;
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

int runTrainer(const Args &args, const Env &env, const std::string &logPath, int timeoutSeconds)
{
    return waitTrainer(startTrainer(args, env, logPath), timeoutSeconds);
}

namespace {

std::vector<pid_t> startRanks(int world, const Args &args, const std::string &logPrefix,
                              const std::vector<Args> &extraArgs)
{
    const std::string port = std::to_string(findFreePort());
    std::vector<pid_t> pids;
    for (int rank = 0; rank < world; ++rank) {
        const Args rankArgs = static_cast<std::size_t>(rank) < extraArgs.size() ? concat(args, extraArgs[rank]) : args;
        const Env env = {{"RANK", std::to_string(rank)},       {"WORLD_SIZE", std::to_string(world)},
                         {"LOCAL_RANK", std::to_string(rank)}, {"LOCAL_WORLD_SIZE", std::to_string(world)},
                         {"MASTER_ADDR", "127.0.0.1"},         {"MASTER_PORT", port}};
        pids.push_back(startTrainer(rankArgs, env, logPrefix + ".rank" + std::to_string(rank) + ".log"));
    }
    return pids;
}

int exitCodeOfStatus(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

std::vector<int> runRanksLikeMpirun(int world, const Args &args, const std::string &logPrefix,
                                    const std::vector<Args> &extraArgs, int timeoutSeconds)
{
    const std::vector<pid_t> pids = startRanks(world, args, logPrefix, extraArgs);
    std::vector<int> codes(pids.size(), -1);
    std::vector<bool> done(pids.size(), false);
    std::size_t running = pids.size();
    bool killed = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    while (running > 0) {
        for (std::size_t i = 0; i < pids.size(); ++i) {
            int status = 0;
            if (done[i] || waitpid(pids[i], &status, WNOHANG) != pids[i])
                continue;
            done[i] = true;
            --running;
            codes[i] = exitCodeOfStatus(status);
            if (codes[i] != 0 && !killed) { // what mpirun does when a rank fails
                killed = true;
                for (std::size_t j = 0; j < pids.size(); ++j)
                    if (!done[j])
                        kill(pids[j], SIGKILL);
            }
        }
        if (running > 0 && std::chrono::steady_clock::now() > deadline && !killed) {
            killed = true;
            for (std::size_t j = 0; j < pids.size(); ++j)
                if (!done[j])
                    kill(pids[j], SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return codes;
}

std::vector<int> runRanks(int world, const Args &args, const std::string &logPrefix, const std::vector<Args> &extraArgs,
                          int timeoutSeconds)
{
    const std::vector<pid_t> pids = startRanks(world, args, logPrefix, extraArgs);
    std::vector<int> codes;
    for (const pid_t pid : pids)
        codes.push_back(waitTrainer(pid, timeoutSeconds));
    return codes;
}

std::vector<std::string> readLines(const std::string &path)
{
    std::vector<std::string> lines;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        lines.push_back(line);
    return lines;
}

std::string readText(const std::string &path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> events(const std::string &metricsPath, const std::string &event)
{
    std::vector<std::string> out;
    for (const std::string &line : readLines(metricsPath))
        if (line.find("\"event\":\"" + event + "\"") != std::string::npos)
            out.push_back(line);
    return out;
}

ModelTensors newestModel(const std::string &dir)
{
    const auto files = listCheckpoints(dir);
    if (files.empty())
        throw std::runtime_error("no checkpoint in " + dir);
    const CheckpointVerdict v = verifyCheckpoint(files.front().path);
    if (v.check != CheckpointCheck::Ok)
        throw std::runtime_error(v.problem);
    return checkpointModelTensors(v.bytes);
}

double maxDifference(const ModelTensors &a, const ModelTensors &b)
{
    if (a.size() != b.size())
        return 1e30;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].first != b[i].first || a[i].second.size() != b[i].second.size())
            return 1e30;
        for (std::size_t j = 0; j < a[i].second.size(); ++j)
            worst = std::max(worst, static_cast<double>(std::abs(a[i].second[j] - b[i].second[j])));
    }
    return worst;
}

void expectClose(const ModelTensors &a, const ModelTensors &b, double tolerance)
{
    const double diff = maxDifference(a, b);
    std::printf("    max |difference| of the parameters: %.3g (tolerance %.0e)\n", diff, tolerance);
    EXPECT_LT(diff, tolerance);
}

} // namespace torchdeck::trainer::test

#include "test_files.h"

namespace torchdeck::trainer::test {

const ModelTensors &uninterruptedRun(const std::string &key, int world, const Args &args)
{
    static std::map<std::string, ModelTensors> cache;
    if (const auto it = cache.find(key); it != cache.end())
        return it->second;
    const std::string dir = freshDir("reference_" + key);
    const Args full = concat(args, {"--checkpoint-dir", dir + "/ckpt", "--metrics", dir + "/metrics.jsonl"});
    if (world == 1) {
        const int code = runTrainer(full, {}, dir + "/run.log");
        if (code != 0)
            throw std::runtime_error("reference run " + key + " failed: " + readText(dir + "/run.log"));
    } else {
        for (const int code : runRanks(world, full, dir + "/run"))
            if (code != 0)
                throw std::runtime_error("reference run " + key + " failed: " + readText(dir + "/run.rank0.log"));
    }
    return cache[key] = newestModel(dir + "/ckpt");
}

} // namespace torchdeck::trainer::test
