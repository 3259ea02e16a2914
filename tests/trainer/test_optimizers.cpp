#include "models/model_factory.h"
#include "models/trainable_model.h"
#include "optim/flat_optimizer.h"
#include "optim/flat_parameters.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace torchdeck::trainer;

namespace {

constexpr double kTolerance = 1e-6;

std::shared_ptr<TrainableModel> toyModel()
{
    torch::manual_seed(11);
    return makeModel("toy", {32}, 10);
}

double maxDifference(torch::nn::Module &a, torch::nn::Module &b)
{
    double worst = 0;
    const auto pa = a.parameters();
    const auto pb = b.parameters();
    for (std::size_t i = 0; i < pa.size(); ++i)
        worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
    return worst;
}

// Trains two copies of the toy model for a few steps: one with our flat optimizer, one with LibTorch's.
template <typename Reference, typename ReferenceOptions>
double compare(const std::function<std::unique_ptr<FlatOptimizer>(FlatParameters &)> &makeFlat,
               const ReferenceOptions &referenceOptions)
{
    auto flatModel = toyModel();
    auto refModel = toyModel();
    FlatParameters flat(*flatModel);
    auto ours = makeFlat(flat);
    Reference reference(refModel->parameters(), referenceOptions);
    torch::manual_seed(5);
    for (int step = 0; step < 6; ++step) {
        const auto x = torch::randn({16, 32});
        const auto y = torch::randint(0, 10, {16});
        flat.zeroGrads();
        torch::cross_entropy_loss(flatModel->forward(x), y).backward();
        ours->step();
        reference.zero_grad();
        torch::cross_entropy_loss(refModel->forward(x), y).backward();
        reference.step();
    }
    EXPECT_EQ(ours->stepCount(), 6);
    return maxDifference(*flatModel, *refModel);
}

} // namespace

TEST(FlatParameters, ParametersAndGradientsAreViewsOfFlatBuffers)
{
    auto model = toyModel();
    const auto before = model->parameters()[0].clone();
    FlatParameters flat(*model);
    ASSERT_EQ(flat.groups().size(), 1u);
    EXPECT_EQ(flat.numel(), 32 * 32 + 32 + 10 * 32 + 10);
    EXPECT_TRUE(torch::equal(model->parameters()[0], before)) << "values survive the move";
    const FlatGroup &g = flat.groups()[0];
    // Reverse registration order: tail.bias first, head.weight last.
    EXPECT_EQ(flat.slots()[g.slots.front()].name, "tail.bias");
    EXPECT_EQ(flat.slots()[g.slots.back()].name, "head.weight");
    for (const ParamSlot &slot : flat.slots()) {
        EXPECT_EQ(slot.param.data_ptr<float>(), g.params.data_ptr<float>() + slot.offset) << slot.name;
        EXPECT_EQ(slot.param.grad().data_ptr<float>(), g.grads.data_ptr<float>() + slot.offset) << slot.name;
    }
    torch::cross_entropy_loss(model->forward(torch::randn({4, 32})), torch::randint(0, 10, {4})).backward();
    EXPECT_GT(g.grads.abs().sum().item<double>(), 0.0) << "autograd accumulated into the flat gradients";
}

TEST(FlatOptimizers, AdamMatchesLibTorchsAdam)
{
    const double diff = compare<torch::optim::Adam>([](FlatParameters &p) { return makeAdam(p, AdamConfig{}); },
                                                    torch::optim::AdamOptions(1e-3));
    EXPECT_LT(diff, kTolerance);
}

TEST(FlatOptimizers, AdamWithWeightDecayMatches)
{
    AdamConfig config;
    config.lr = 3e-3;
    config.weightDecay = 0.1;
    const double diff = compare<torch::optim::Adam>([&](FlatParameters &p) { return makeAdam(p, config); },
                                                    torch::optim::AdamOptions(3e-3).weight_decay(0.1));
    EXPECT_LT(diff, kTolerance);
}

TEST(FlatOptimizers, SgdWithMomentumMatchesLibTorchsSgd)
{
    const double diff = compare<torch::optim::SGD>(
        [](FlatParameters &p) {
            return makeSgd(p, SgdConfig{0.05, 0.9, 1e-4});
        },
        torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-4));
    EXPECT_LT(diff, kTolerance);
}

TEST(FlatOptimizers, PlainSgdMatches)
{
    const double diff = compare<torch::optim::SGD>(
        [](FlatParameters &p) {
            return makeSgd(p, SgdConfig{0.1, 0, 0});
        },
        torch::optim::SGDOptions(0.1));
    EXPECT_LT(diff, kTolerance);
}
