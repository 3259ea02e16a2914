#pragma once

#include "data/dataset_spec.h"

#include <ATen/core/Tensor.h>
#include <cstdint>
#include <string>
#include <vector>

namespace torchdeck::trainer {

// A split held in memory: inputs [N, ...] float in [0, 1], targets [N] int64 class indices.
struct Dataset {
    at::Tensor inputs;
    at::Tensor targets;
    std::int64_t numClasses = 10;
    std::int64_t size() const { return inputs.defined() ? inputs.size(0) : 0; }
};

struct DatasetSplits {
    Dataset train;
    Dataset val;
};

// Loads both splits. `syntheticShape` is the per-sample shape synthetic data takes (the model's natural
// input); limit > 0 keeps only the first `limit` samples of each split. Throws std::runtime_error with a
// message naming the file for missing or malformed data.
DatasetSplits loadDatasets(const DatasetSpec &spec, const std::vector<std::int64_t> &syntheticShape,
                           std::int64_t limit);

DatasetSplits loadIdxDatasets(const std::string &dir, std::int64_t limit);
DatasetSplits makeSyntheticDatasets(std::int64_t trainSize, const std::vector<std::int64_t> &sampleShape,
                                    std::int64_t limit);

} // namespace torchdeck::trainer
