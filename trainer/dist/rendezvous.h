#pragma once

#include <chrono>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace torchdeck::trainer {

struct LaunchEnv;

// A c10d TCPStore: rank 0 serves on MASTER_ADDR:MASTER_PORT and waits for all ranks; the others connect,
// retrying until `timeout`.
c10::intrusive_ptr<c10d::Store> rendezvous(const LaunchEnv &env, std::chrono::milliseconds timeout);

} // namespace torchdeck::trainer
