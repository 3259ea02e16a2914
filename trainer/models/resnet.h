#pragma once

#include "models/trainable_model.h"

#include <array>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

namespace torchdeck::trainer {

// torchvision.models.resnet18 / resnet50 (architecture, initialisation and state_dict names), the first
// convolution taking `inChannels` instead of 3.
struct ResNet : TrainableModel {
    enum class Depth { R18, R50 };
    ResNet(Depth depth, std::int64_t inChannels, std::int64_t classes);
    torch::Tensor forward(const torch::Tensor &input) override;
    LossKind lossKind() const override { return LossKind::Classification; }

    torch::nn::Conv2d conv1{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr};
    torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
    torch::nn::Linear fc{nullptr};

private:
    template <typename Block>
    torch::nn::Sequential makeLayer(std::int64_t planes, std::int64_t blocks, std::int64_t stride);
    std::int64_t inPlanes_ = 64;
};

} // namespace torchdeck::trainer
