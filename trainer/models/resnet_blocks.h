#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>

namespace torchdeck::trainer {

// torchvision's residual blocks, with its parameter names (conv1, bn1, ..., downsample.0/1).

struct BasicBlockImpl : torch::nn::Module {
    static constexpr std::int64_t kExpansion = 1;
    BasicBlockImpl(std::int64_t inPlanes, std::int64_t planes, std::int64_t stride, torch::nn::Sequential downsample);
    torch::Tensor forward(const torch::Tensor &x);

    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
    torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(BasicBlock);

struct BottleneckImpl : torch::nn::Module {
    static constexpr std::int64_t kExpansion = 4;
    BottleneckImpl(std::int64_t inPlanes, std::int64_t planes, std::int64_t stride, torch::nn::Sequential downsample);
    torch::Tensor forward(const torch::Tensor &x);

    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
    torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

torch::nn::Conv2d conv3x3(std::int64_t in, std::int64_t out, std::int64_t stride);
torch::nn::Conv2d conv1x1(std::int64_t in, std::int64_t out, std::int64_t stride);

} // namespace torchdeck::trainer
