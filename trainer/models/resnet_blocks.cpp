#include "models/resnet_blocks.h"

#include <torch/nn/functional/activation.h>

namespace torchdeck::trainer {

torch::nn::Conv2d conv3x3(std::int64_t in, std::int64_t out, std::int64_t stride)
{
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

torch::nn::Conv2d conv1x1(std::int64_t in, std::int64_t out, std::int64_t stride)
{
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride).bias(false));
}

BasicBlockImpl::BasicBlockImpl(std::int64_t inPlanes, std::int64_t planes, std::int64_t stride,
                               torch::nn::Sequential ds)
{
    conv1 = register_module("conv1", conv3x3(inPlanes, planes, stride));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(planes));
    conv2 = register_module("conv2", conv3x3(planes, planes, 1));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(planes));
    if (ds)
        downsample = register_module("downsample", ds);
}

torch::Tensor BasicBlockImpl::forward(const torch::Tensor &x)
{
    auto out = bn1->forward(conv1->forward(x)).relu_();
    out = bn2->forward(conv2->forward(out));
    out += downsample ? downsample->forward(x) : x;
    return out.relu_();
}

BottleneckImpl::BottleneckImpl(std::int64_t inPlanes, std::int64_t planes, std::int64_t stride,
                               torch::nn::Sequential ds)
{
    conv1 = register_module("conv1", conv1x1(inPlanes, planes, 1));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(planes));
    conv2 = register_module("conv2", conv3x3(planes, planes, stride)); // stride here: torchvision's ResNet v1.5
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(planes));
    conv3 = register_module("conv3", conv1x1(planes, planes * kExpansion, 1));
    bn3 = register_module("bn3", torch::nn::BatchNorm2d(planes * kExpansion));
    if (ds)
        downsample = register_module("downsample", ds);
}

torch::Tensor BottleneckImpl::forward(const torch::Tensor &x)
{
    auto out = bn1->forward(conv1->forward(x)).relu_();
    out = bn2->forward(conv2->forward(out)).relu_();
    out = bn3->forward(conv3->forward(out));
    out += downsample ? downsample->forward(x) : x;
    return out.relu_();
}

} // namespace torchdeck::trainer
