#include "dist/rendezvous.h"

#include "dist/launch_env.h"

#include <stdexcept>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace torchdeck::trainer {

c10::intrusive_ptr<c10d::Store> rendezvous(const LaunchEnv &env, std::chrono::milliseconds timeout)
{
    c10d::TCPStoreOptions options;
    // A world of one waits for nobody: any free port (no clash with another job's MASTER_PORT).
    options.port = env.worldSize == 1 ? 0 : static_cast<std::uint16_t>(env.masterPort);
    options.isServer = env.rank == 0;
    options.numWorkers = static_cast<std::size_t>(env.worldSize);
    options.waitWorkers = true;
    options.timeout = timeout;
    try {
        return c10::make_intrusive<c10d::TCPStore>(env.masterAddr, options);
    } catch (const std::exception &e) {
        throw std::runtime_error("rendezvous at " + env.masterAddr + ":" + std::to_string(env.masterPort) +
                                 " failed (rank " + std::to_string(env.rank) + " of " + std::to_string(env.worldSize) +
                                 "): " + e.what());
    }
}

} // namespace torchdeck::trainer
