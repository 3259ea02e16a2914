#pragma once

#include "models/trainable_model.h"

#include <torch/nn/modules/linear.h>

namespace torchdeck::trainer {

// The tutorials' ToyModel: head Linear(features, 32) and tail Linear(32, classes), features = 32 on
// synthetic data. As toy-split the head and the tail live on two devices (model parallel inside a rank);
// with one device (or CPU) both halves share it.
struct ToyModel : TrainableModel {
    ToyModel(std::int64_t features, std::int64_t classes);
    torch::Tensor forward(const torch::Tensor &input) override;
    LossKind lossKind() const override { return LossKind::Classification; }
    void place(const std::vector<torch::Device> &devices) override;

    torch::nn::Linear head{nullptr};
    torch::nn::Linear tail{nullptr};
};

} // namespace torchdeck::trainer
