#pragma once

#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

// Runs the real torchdeck-train binary for the end-to-end tests.
namespace torchdeck::trainer::test {

using Args = std::vector<std::string>;
using Env = std::map<std::string, std::string>;
using ModelTensors = std::vector<std::pair<std::string, std::vector<float>>>;

// Starts torchdeck-train with `args`; its output goes to `logPath`. The environment is the test's own
// minus every launcher variable (RANK, SLURM_*, OMPI_*, ...), plus `env`.
pid_t startTrainer(const Args &args, const Env &env, const std::string &logPath);
// Waits up to `timeoutSeconds`; on timeout kills it and returns -1. Else the exit code (128+signal).
int waitTrainer(pid_t pid, int timeoutSeconds);
int runTrainer(const Args &args, const Env &env, const std::string &logPath, int timeoutSeconds = 120);

// Runs `world` ranks torchrun-style on a free loopback port; rank r gets args + extraArgs[r] (if any).
std::vector<int> runRanks(int world, const Args &args, const std::string &logPrefix,
                          const std::vector<Args> &extraArgs = {}, int timeoutSeconds = 120);

// The same, but like mpirun: as soon as one rank exits with a non-zero code (75 included), the others
// are killed with SIGKILL (their code is then 128 + 9).
std::vector<int> runRanksLikeMpirun(int world, const Args &args, const std::string &logPrefix,
                                    const std::vector<Args> &extraArgs = {}, int timeoutSeconds = 120);

std::vector<std::string> readLines(const std::string &path);
std::string readText(const std::string &path);
// Lines of a metrics file whose "event" is `event`.
std::vector<std::string> events(const std::string &metricsPath, const std::string &event);

// The model tensors of the newest checkpoint of `dir`.
ModelTensors newestModel(const std::string &dir);
double maxDifference(const ModelTensors &a, const ModelTensors &b);
// Expects no parameter of `a` and `b` to differ by `tolerance` or more, and prints the largest difference.
void expectClose(const ModelTensors &a, const ModelTensors &b, double tolerance);

Args concat(Args a, const Args &b);

} // namespace torchdeck::trainer::test

namespace torchdeck::trainer::test {

// The final model of an uninterrupted run (`world` ranks, or 1 process), computed once per test program.
const ModelTensors &uninterruptedRun(const std::string &key, int world, const Args &args);

} // namespace torchdeck::trainer::test
