#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace torchdeck::trainer {

enum class LaunchKind { Single, Torchrun, Slurm, OpenMpi, Pbs };

// Where this process sits in the job, as the launcher described it.
struct LaunchEnv {
    LaunchKind kind = LaunchKind::Single;
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    int localWorldSize = 1;
    int nodeRank = 0;
    int numNodes = 1;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;
};

struct LaunchEnvResult {
    LaunchEnv env;
    std::string error; // empty on success
};

using EnvMap = std::map<std::string, std::string>;
// Returns a file's contents, or nothing if it cannot be read (PBS_NODEFILE).
using FileReader = std::function<std::optional<std::string>(const std::string &path)>;

constexpr int kDefaultMasterPort = 29500;

// Detects the launch environment from the environment variables alone, in this order: torchrun-style
// (RANK, WORLD_SIZE), Slurm task (SLURM_PROCID inside a job step), Open MPI (OMPI_COMM_WORLD_*), PBS
// (PBS_NODEFILE), else one process. Malformed values are errors, never silently replaced.
LaunchEnvResult detectLaunchEnv(const EnvMap &env, const FileReader &readFile);

EnvMap processEnvironment();
std::optional<std::string> readWholeFile(const std::string &path);
const char *launchKindName(LaunchKind kind);

} // namespace torchdeck::trainer
