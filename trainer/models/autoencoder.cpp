#include "models/autoencoder.h"

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>

namespace torchdeck::trainer {

namespace {
constexpr std::int64_t kHidden = 128;
}

AutoEncoder::AutoEncoder(std::int64_t features)
{
    using namespace torch::nn;
    const auto relu = ReLUOptions().inplace(true);
    net =
        register_module("net", Sequential(Linear(features, kHidden), ReLU(relu), Linear(kHidden, kHidden), ReLU(relu),
                                          Linear(kHidden, kHidden), ReLU(relu), Linear(kHidden, features), ReLU(relu)));
}

torch::Tensor AutoEncoder::forward(const torch::Tensor &input)
{
    return net->forward(input.flatten(1));
}

} // namespace torchdeck::trainer
