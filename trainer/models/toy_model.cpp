#include "models/toy_model.h"

namespace torchdeck::trainer {

namespace {
constexpr std::int64_t kToyHidden = 32;
}

ToyModel::ToyModel(std::int64_t features, std::int64_t classes)
{
    head = register_module("head", torch::nn::Linear(features, kToyHidden));
    tail = register_module("tail", torch::nn::Linear(kToyHidden, classes));
}

void ToyModel::place(const std::vector<torch::Device> &devices)
{
    head->to(devices.front());
    tail->to(devices.back());
}

torch::Tensor ToyModel::forward(const torch::Tensor &input)
{
    const torch::Device inputDevice = input.device();
    const torch::Device headDevice = head->weight.device();
    const torch::Device tailDevice = tail->weight.device();
    auto x = head->forward(input.flatten(1).to(headDevice));
    x = tail->forward(x.to(tailDevice));
    return x.to(inputDevice);
}

} // namespace torchdeck::trainer
