#pragma once

#include "models/trainable_model.h"

#include <torch/nn/modules/container/sequential.h>

namespace torchdeck::trainer {

// The tutorials' MLP auto-encoder: features-128-128-128-features with ReLU after every layer, trained
// with MSE against its input. Parameter names match the Python AE: net.0.weight ... net.6.bias.
struct AutoEncoder : TrainableModel {
    explicit AutoEncoder(std::int64_t features);
    torch::Tensor forward(const torch::Tensor &input) override;
    LossKind lossKind() const override { return LossKind::Reconstruction; }

    torch::nn::Sequential net;
};

} // namespace torchdeck::trainer
