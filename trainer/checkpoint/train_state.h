#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torch::nn {
class Module;
}

namespace torchdeck::trainer {

class FlatOptimizer;
class FlatParameters;

// Where training stands; what a checkpoint needs beyond tensors to resume exactly.
struct Progress {
    std::int64_t epoch = 0;          // the epoch to continue (0-based)
    std::int64_t epochStep = 0;      // batches per rank already done in that epoch (sampler position)
    std::int64_t globalStep = 0;     // optimizer steps done
    double epochLossSum = 0;         // sum over ranks and steps of the step losses in this epoch so far
    std::int64_t epochLossCount = 0; // how many (rank, step) losses that sum holds
    int batchSize = 0;               // per rank, when the checkpoint was written
    int worldSize = 1;
};

struct TrainStateRefs {
    torch::nn::Module &model;
    FlatParameters &params;
    FlatOptimizer &optimizer;
};

// A torch.load-able dict: {"format", "model": {torchvision-style name: tensor} (parameters and buffers),
// "optimizer": {"name", "step", "lr", <state>: {name: tensor}}, "progress": {...}, "rng": tensor,
// "config": JSON text}.
std::vector<char> serializeTrainState(const TrainStateRefs &state, const Progress &progress,
                                      const std::string &configJson);

// Checks everything first (names, shapes, optimizer kind), then restores. Returns why it cannot (nothing
// changed), or an empty string with `progress` filled.
std::string restoreTrainState(const std::vector<char> &bytes, const TrainStateRefs &state, Progress &progress);

// The model tensors of a checkpoint (for tests and tools).
std::vector<std::pair<std::string, std::vector<float>>> checkpointModelTensors(const std::vector<char> &bytes);

} // namespace torchdeck::trainer
