#include "models/resnet.h"

#include "models/resnet_blocks.h"

#include <torch/nn/functional/pooling.h>
#include <torch/nn/init.h>

namespace torchdeck::trainer {

namespace {
constexpr std::int64_t kStemWidth = 64;
constexpr std::array<std::int64_t, 4> kR18Blocks = {2, 2, 2, 2};
constexpr std::array<std::int64_t, 4> kR50Blocks = {3, 4, 6, 3};
} // namespace

template <typename Block>
torch::nn::Sequential ResNet::makeLayer(std::int64_t planes, std::int64_t blocks, std::int64_t stride)
{
    constexpr std::int64_t expansion = Block::Impl::kExpansion;
    torch::nn::Sequential downsample{nullptr};
    if (stride != 1 || inPlanes_ != planes * expansion)
        downsample = torch::nn::Sequential(conv1x1(inPlanes_, planes * expansion, stride),
                                           torch::nn::BatchNorm2d(planes * expansion));
    torch::nn::Sequential layer;
    layer->push_back(Block(inPlanes_, planes, stride, downsample));
    inPlanes_ = planes * expansion;
    for (std::int64_t i = 1; i < blocks; ++i)
        layer->push_back(Block(inPlanes_, planes, 1, torch::nn::Sequential(nullptr)));
    return layer;
}

ResNet::ResNet(Depth depth, std::int64_t inChannels, std::int64_t classes)
{
    using namespace torch::nn;
    conv1 = register_module("conv1", Conv2d(Conv2dOptions(inChannels, kStemWidth, 7).stride(2).padding(3).bias(false)));
    bn1 = register_module("bn1", BatchNorm2d(kStemWidth));
    const auto &blocks = depth == Depth::R18 ? kR18Blocks : kR50Blocks;
    const bool bottleneck = depth == Depth::R50;
    const std::array<std::int64_t, 4> planes = {64, 128, 256, 512};
    const std::array<std::int64_t, 4> strides = {1, 2, 2, 2};
    Sequential *layers[] = {&layer1, &layer2, &layer3, &layer4};
    for (std::size_t i = 0; i < 4; ++i) {
        *layers[i] = bottleneck ? makeLayer<Bottleneck>(planes[i], blocks[i], strides[i])
                                : makeLayer<BasicBlock>(planes[i], blocks[i], strides[i]);
        register_module("layer" + std::to_string(i + 1), *layers[i]);
    }
    fc = register_module("fc", Linear(inPlanes_, classes));

    for (auto &module : modules(/*include_self=*/false)) {
        if (auto *conv = module->as<Conv2d>()) {
            init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
        } else if (auto *bn = module->as<BatchNorm2d>()) {
            init::constant_(bn->weight, 1.0);
            init::constant_(bn->bias, 0.0);
        }
    }
}

torch::Tensor ResNet::forward(const torch::Tensor &input)
{
    namespace F = torch::nn::functional;
    auto x = bn1->forward(conv1->forward(input)).relu_();
    x = F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
    x = layer4->forward(layer3->forward(layer2->forward(layer1->forward(x))));
    x = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)).flatten(1);
    return fc->forward(x);
}

} // namespace torchdeck::trainer
