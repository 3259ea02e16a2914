#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <chrono>
#include <memory>
#include <string>

namespace torchdeck::trainer {

struct LaunchEnv;

// A collective started but maybe not finished; wait() rethrows the backend's error.
class PendingCollective {
public:
    virtual ~PendingCollective() = default;
    virtual void wait() = 0;
};

// The few collectives the trainer needs, behind one small interface; one implementation file per
// backend (gloo_communicator.cpp, nccl_communicator.cpp), picked at run time.
class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    virtual std::string backend() const = 0;
    // The device collective tensors must live on.
    virtual c10::Device device() const = 0;

    // In-place sum over all ranks, asynchronous: it may run while the caller goes on (backward).
    virtual std::unique_ptr<PendingCollective> allreduceSum(const at::Tensor &tensor) = 0;
    // In place, blocking.
    virtual void broadcast(const at::Tensor &tensor, int root) = 0;
    virtual void barrier() = 0;
};

struct CommunicatorConfig {
    std::string backend = "gloo"; // gloo | nccl | shm | auto (CPU: shm if all ranks share a host, else gloo)
    c10::Device device = c10::Device(c10::kCPU);
    std::chrono::milliseconds timeout{std::chrono::seconds(300)};
};

// Rendezvous through a c10d TCPStore at the master address, then the backend's process group.
std::unique_ptr<Communicator> connectCommunicator(const LaunchEnv &env, const CommunicatorConfig &config);

// Whether this build has the Gloo backend (not when LibTorch came without gloo headers: pip wheels).
bool glooAvailable();
// Whether this build has the NCCL backend.
bool ncclAvailable();

} // namespace torchdeck::trainer
