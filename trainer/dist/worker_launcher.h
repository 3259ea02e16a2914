#pragma once

#include "dist/launch_env.h"

#include <string>
#include <vector>

namespace torchdeck::trainer {

// --nproc-per-node: this process is the launcher of one node (like torchrun under `srun
// --ntasks-per-node=1`). The node's place comes from its own launch environment: rank = node rank,
// world size = number of nodes.
struct WorkerPlan {
    int nprocPerNode = 1;
    int nodeRank = 0;
    int numNodes = 1;
    std::string masterAddr = "127.0.0.1";
    int masterPort = kDefaultMasterPort;
};

// Pure: the variables worker `localRank` gets (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
// GROUP_WORLD_SIZE, MASTER_ADDR, MASTER_PORT and TORCHDECK_WORKER=1, which stops it from launching again).
EnvMap workerEnvironment(const WorkerPlan &plan, int localRank);

// The plan for this node; `freePort` is used on a single node when MASTER_PORT is not set.
WorkerPlan planWorkers(const LaunchEnv &nodeEnv, int nprocPerNode, bool masterPortSet, int freePort);

// A port that was free on 127.0.0.1 a moment ago.
int findFreePort();

// Starts the workers (this executable, same arguments), forwards stop signals to them, waits. If one
// fails, the others are killed. Returns 0 if all succeeded, the requeue code if all that stopped early
// stopped with it, else the first failure's code (128 + signal for a worker killed by a signal).
int launchWorkers(const WorkerPlan &plan, const std::vector<std::string> &args, int requeueExitCode);

constexpr const char *kWorkerMarker = "TORCHDECK_WORKER";

} // namespace torchdeck::trainer
