#include "dist/communicator.h"
#ifdef TORCHDECK_WITH_GLOO
#include "dist/gloo_communicator.h"
#endif
#include "dist/launch_env.h"
#include "dist/rendezvous.h"
#include "dist/shm_communicator.h"
#ifdef TORCHDECK_WITH_NCCL
#include "dist/nccl_communicator.h"
#endif

#include <stdexcept>

namespace torchdeck::trainer {

bool glooAvailable()
{
#ifdef TORCHDECK_WITH_GLOO
    return true;
#else
    return false;
#endif
}

bool ncclAvailable()
{
#ifdef TORCHDECK_WITH_NCCL
    return true;
#else
    return false;
#endif
}

std::unique_ptr<Communicator> connectCommunicator(const LaunchEnv &env, const CommunicatorConfig &config)
{
    auto store = rendezvous(env, config.timeout);
    std::string backend = config.backend;
    if (backend == "auto" || backend == "shm") { // CPU tensors: shared memory when all ranks share a host
        const bool local = allRanksOnThisHost(*store, env);
        if (backend == "shm" && !local)
            throw std::runtime_error("--backend shm needs every rank on one host; use gloo across nodes");
        backend = local ? "shm" : "gloo";
    }
    if (backend == "shm")
        return makeShmCommunicator(env, *store, config.timeout);
#ifdef TORCHDECK_WITH_GLOO
    if (backend == "gloo")
        return makeGlooCommunicator(env, std::move(store), config.timeout);
#endif
#ifdef TORCHDECK_WITH_NCCL
    if (backend == "nccl")
        return makeNcclCommunicator(env, std::move(store), config.timeout, config.device);
#endif
    throw std::runtime_error("backend '" + backend + "' is not available in this build");
}

} // namespace torchdeck::trainer
