#pragma once

#include "dist/communicator.h"

#include <torch/csrc/distributed/c10d/Store.hpp>

namespace torchdeck::trainer {

// Only compiled in CUDA builds of LibTorch (TORCHDECK_WITH_NCCL).
std::unique_ptr<Communicator> makeNcclCommunicator(const LaunchEnv &env, c10::intrusive_ptr<c10d::Store> store,
                                                   std::chrono::milliseconds timeout, c10::Device device);

} // namespace torchdeck::trainer
