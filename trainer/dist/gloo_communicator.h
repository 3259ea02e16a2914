#pragma once

#include "dist/communicator.h"

#include <torch/csrc/distributed/c10d/Store.hpp>

namespace torchdeck::trainer {

std::unique_ptr<Communicator> makeGlooCommunicator(const LaunchEnv &env, c10::intrusive_ptr<c10d::Store> store,
                                                   std::chrono::milliseconds timeout);

} // namespace torchdeck::trainer
