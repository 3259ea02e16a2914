#pragma once

#include "dist/communicator.h"

#include <torch/csrc/distributed/c10d/Store.hpp>

namespace torchdeck::trainer {

// Whether every rank runs on this host (same host name and boot id), agreed through the store: every rank
// reads the same answers, so every rank reaches the same conclusion.
bool allRanksOnThisHost(c10d::Store &store, const LaunchEnv &env);

// Collectives through a POSIX shared-memory segment, for CPU ranks that all share one host: each rank
// copies its part in, each reduces a 1/world slice of the sum (in rank order, so every rank gets the same
// bits), each copies the result out; a futex barrier between the phases. Collectives run in the calling
// thread (the gradient hooks: during backward), in chunks of 4 MiB.
std::unique_ptr<Communicator> makeShmCommunicator(const LaunchEnv &env, c10d::Store &store,
                                                  std::chrono::milliseconds timeout);

} // namespace torchdeck::trainer
