#include "dist/nccl_communicator.h"

#include "dist/c10d_communicator.h"
#include "dist/launch_env.h"

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

namespace torchdeck::trainer {

std::unique_ptr<Communicator> makeNcclCommunicator(const LaunchEnv &env, c10::intrusive_ptr<c10d::Store> store,
                                                   std::chrono::milliseconds timeout, c10::Device device)
{
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, env.rank, env.worldSize, options);
    return std::make_unique<C10dCommunicator<c10d::ProcessGroupNCCL>>(std::move(store), std::move(group), "nccl",
                                                                      device);
}

} // namespace torchdeck::trainer
