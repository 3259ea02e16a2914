#include "models/model_factory.h"
#include "models/trainable_model.h"

#include <gtest/gtest.h>
#include <map>
#include <torch/torch.h>

using namespace torchdeck::trainer;

namespace {

std::map<std::string, std::vector<std::int64_t>> stateShapes(torch::nn::Module &m)
{
    std::map<std::string, std::vector<std::int64_t>> out;
    for (const auto &p : m.named_parameters())
        out[p.key()] = p.value().sizes().vec();
    for (const auto &b : m.named_buffers())
        out[b.key()] = b.value().sizes().vec();
    return out;
}

std::int64_t parameterCount(torch::nn::Module &m)
{
    std::int64_t n = 0;
    for (const auto &p : m.parameters())
        n += p.numel();
    return n;
}

using Shape = std::vector<std::int64_t>;

} // namespace

TEST(Models, AutoEncoderMatchesTheTutorial)
{
    auto ae = makeModel("ae", {1, 28, 28}, 10);
    const auto shapes = stateShapes(*ae);
    const std::map<std::string, Shape> expected = {
        {"net.0.weight", {128, 784}}, {"net.0.bias", {128}}, {"net.2.weight", {128, 128}}, {"net.2.bias", {128}},
        {"net.4.weight", {128, 128}}, {"net.4.bias", {128}}, {"net.6.weight", {784, 128}}, {"net.6.bias", {784}}};
    EXPECT_EQ(shapes, expected);
    const auto out = ae->forward(torch::rand({3, 1, 28, 28}));
    EXPECT_EQ(out.sizes().vec(), (Shape{3, 784}));
    EXPECT_GE(out.min().item<float>(), 0.0f) << "ends with ReLU";
    EXPECT_EQ(ae->lossKind(), LossKind::Reconstruction);
}

TEST(Models, ToyModelHeadAndTail)
{
    auto toy = makeModel("toy-split", naturalInputShape("toy-split"), 10);
    const std::map<std::string, Shape> expected = {
        {"head.weight", {32, 32}}, {"head.bias", {32}}, {"tail.weight", {10, 32}}, {"tail.bias", {10}}};
    EXPECT_EQ(stateShapes(*toy), expected);
    toy->place({torch::Device(torch::kCPU), torch::Device(torch::kCPU)}); // both halves on what exists
    EXPECT_EQ(toy->forward(torch::rand({5, 32})).sizes().vec(), (Shape{5, 10}));
    EXPECT_TRUE(isModelParallel("toy-split"));
    EXPECT_FALSE(isModelParallel("toy"));
    auto onImages = makeModel("toy", {1, 28, 28}, 10);
    EXPECT_EQ(stateShapes(*onImages).at("head.weight"), (Shape{32, 784}));
}

TEST(Models, ResNetsHaveTorchvisionsParametersAndNames)
{
    // torchvision.models.resnet18() / resnet50(): 11,689,512 and 25,557,032 parameters.
    auto r18 = makeModel("resnet18", {3, 64, 64}, 1000);
    EXPECT_EQ(parameterCount(*r18), 11689512);
    auto r50 = makeModel("resnet50", {3, 64, 64}, 1000);
    EXPECT_EQ(parameterCount(*r50), 25557032);

    const auto s18 = stateShapes(*r18);
    EXPECT_EQ(s18.size(), 122u); // 62 parameters + 20 BatchNorms x 3 buffers
    EXPECT_EQ(s18.at("conv1.weight"), (Shape{64, 3, 7, 7}));
    EXPECT_EQ(s18.at("bn1.running_mean"), (Shape{64}));
    EXPECT_EQ(s18.at("bn1.num_batches_tracked"), (Shape{}));
    EXPECT_EQ(s18.at("layer1.1.conv2.weight"), (Shape{64, 64, 3, 3}));
    EXPECT_EQ(s18.at("layer2.0.downsample.0.weight"), (Shape{128, 64, 1, 1}));
    EXPECT_EQ(s18.at("layer2.0.downsample.1.running_var"), (Shape{128}));
    EXPECT_EQ(s18.at("layer4.1.bn2.bias"), (Shape{512}));
    EXPECT_EQ(s18.at("fc.weight"), (Shape{1000, 512}));
    EXPECT_EQ(s18.count("layer1.0.downsample.0.weight"), 0u);

    const auto s50 = stateShapes(*r50);
    EXPECT_EQ(s50.size(), 320u); // 161 parameters + 53 BatchNorms x 3 buffers
    EXPECT_EQ(s50.at("layer1.0.downsample.0.weight"), (Shape{256, 64, 1, 1}));
    EXPECT_EQ(s50.at("layer3.5.conv3.weight"), (Shape{1024, 256, 1, 1}));
    EXPECT_EQ(s50.at("layer4.2.conv2.weight"), (Shape{512, 512, 3, 3}));
    EXPECT_EQ(s50.at("fc.weight"), (Shape{1000, 2048}));
}

TEST(Models, ResNetFirstConvTakesTheInputChannels)
{
    auto r18 = makeModel("resnet18", {1, 28, 28}, 10);
    EXPECT_EQ(stateShapes(*r18).at("conv1.weight"), (Shape{64, 1, 7, 7}));
    EXPECT_EQ(r18->forward(torch::rand({2, 1, 28, 28})).sizes().vec(), (Shape{2, 10}));
    EXPECT_THROW(makeModel("resnet18", {784}, 10), std::invalid_argument);
    EXPECT_THROW(makeModel("vgg", {784}, 10), std::invalid_argument);
}

TEST(Models, InitialisationFollowsTheSeed)
{
    torch::manual_seed(3);
    auto a = makeModel("ae", {784}, 10);
    torch::manual_seed(3);
    auto b = makeModel("ae", {784}, 10);
    EXPECT_TRUE(torch::equal(a->parameters()[0], b->parameters()[0]));
}
