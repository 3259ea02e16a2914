#include "dist/gloo_communicator.h"

#include "dist/c10d_communicator.h"
#include "dist/launch_env.h"

#include <cstdlib>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace torchdeck::trainer {

namespace {

bool isLoopback(const std::string &host)
{
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// GLOO_SOCKET_IFNAME as in PyTorch; loopback when the master is local; else this host's name.
std::shared_ptr<::gloo::transport::Device> makeDevice(const LaunchEnv &env)
{
    if (const char *ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname != nullptr && *ifname != '\0')
        return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
    if (isLoopback(env.masterAddr))
        return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
    return c10d::ProcessGroupGloo::createDefaultDevice();
}

} // namespace

std::unique_ptr<Communicator> makeGlooCommunicator(const LaunchEnv &env, c10::intrusive_ptr<c10d::Store> store,
                                                   std::chrono::milliseconds timeout)
{
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    options->devices.push_back(makeDevice(env));
    auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.worldSize, options);
    return std::make_unique<C10dCommunicator<c10d::ProcessGroupGloo>>(std::move(store), std::move(group), "gloo",
                                                                      c10::Device(c10::kCPU));
}

} // namespace torchdeck::trainer
