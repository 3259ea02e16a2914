#pragma once

#include "models/trainable_model.h"

#include <ATen/core/Tensor.h>
#include <cstdint>

namespace torchdeck::trainer {

struct Dataset;

struct Batch {
    at::Tensor inputs;
    at::Tensor targets;
};

// Gathers the samples `indices[0..count)` of `data` onto `device`.
Batch gatherBatch(const Dataset &data, const std::int64_t *indices, std::int64_t count, const c10::Device &device,
                  bool channelsLast);

// The mean loss of a batch: MSE against the flattened input, or cross entropy against the labels.
at::Tensor batchLoss(LossKind kind, const at::Tensor &output, const Batch &batch);

} // namespace torchdeck::trainer
