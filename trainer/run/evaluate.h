#pragma once

#include <cstdint>
#include <vector>

namespace torchdeck::trainer {

struct Dataset;
struct TrainableModel;
struct DevicePlan;

struct EvalSums {
    double lossSum = 0; // sum over samples of the per-sample loss
    double correct = 0; // classification only
    double count = 0;
};

// Evaluates `model` on the samples `indices` of `data` (no gradients, eval mode), in batches.
EvalSums evaluate(TrainableModel &model, const Dataset &data, const std::vector<std::int64_t> &indices,
                  std::int64_t batchSize, const DevicePlan &devices, bool channelsLast, bool bf16);

} // namespace torchdeck::trainer
