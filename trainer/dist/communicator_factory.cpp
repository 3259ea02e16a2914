#include "dist/communicator.h"
#include "dist/gloo_communicator.h"
#include "dist/launch_env.h"
#include "dist/rendezvous.h"
#ifdef TORCHDECK_WITH_NCCL
#include "dist/nccl_communicator.h"
#endif

#include <stdexcept>

namespace torchdeck::trainer {

bool ncclAvailable() {
#ifdef TORCHDECK_WITH_NCCL
    return true;
#else
    return false;
#endif
}

std::unique_ptr<Communicator> connectCommunicator(const LaunchEnv &env, const CommunicatorConfig &config) {
    auto store = rendezvous(env, config.timeout);
    if (config.backend == "gloo")
        return makeGlooCommunicator(env, std::move(store), config.timeout);
#ifdef TORCHDECK_WITH_NCCL
    if (config.backend == "nccl")
        return makeNcclCommunicator(env, std::move(store), config.timeout, config.device);
#endif
    throw std::runtime_error("backend '" + config.backend + "' is not available in this build");
}

} // namespace torchdeck::trainer
