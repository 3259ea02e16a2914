#pragma once

namespace torch::nn {
class Module;
}

namespace torchdeck::trainer {

class Communicator;
class FlatOptimizer;
class FlatParameters;
struct Progress;

// Rank 0's parameters, buffers, optimizer state and progress to every rank (the same order on all).
void broadcastTrainState(Communicator &comm, torch::nn::Module &model, FlatParameters &params, FlatOptimizer &optimizer,
                         Progress &progress);

} // namespace torchdeck::trainer
