#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torchdeck::trainer {

struct TrainableModel;

// The per-sample input shape a model takes when the data does not impose one (synthetic data).
std::vector<std::int64_t> naturalInputShape(const std::string &model);

// Builds `model` for samples of `sampleShape` (e.g. {1, 28, 28}) and `classes` classes; throws
// std::invalid_argument for an unknown name or an unusable shape.
std::shared_ptr<TrainableModel> makeModel(const std::string &model, const std::vector<std::int64_t> &sampleShape,
                                          std::int64_t classes);

// Whether the model is split over two devices (model parallel).
bool isModelParallel(const std::string &model);

} // namespace torchdeck::trainer
