#include "checkpoint/train_state.h"
#include "models/model_factory.h"
#include "models/trainable_model.h"
#include "optim/flat_optimizer.h"
#include "optim/flat_parameters.h"

#include <gtest/gtest.h>
#include <torch/serialize.h>
#include <torch/torch.h>

using namespace torchdeck::trainer;

namespace {

struct TrainRun {
    std::shared_ptr<TrainableModel> model;
    std::unique_ptr<FlatParameters> params;
    std::unique_ptr<FlatOptimizer> optimizer;

    TrainRun(const std::string &name, std::uint64_t seed)
    {
        torch::manual_seed(seed);
        model = makeModel(
            name, name == "resnet18" ? std::vector<std::int64_t>{1, 28, 28} : std::vector<std::int64_t>{32}, 10);
        params = std::make_unique<FlatParameters>(*model);
        optimizer = makeAdam(*params, AdamConfig{});
    }
    TrainStateRefs refs() { return {*model, *params, *optimizer}; }
    void steps(int n)
    {
        for (int i = 0; i < n; ++i) {
            params->zeroGrads();
            const auto x = model->parameters()[0].size(1) == 32 ? torch::randn({8, 32}) : torch::randn({8, 1, 28, 28});
            torch::cross_entropy_loss(model->forward(x), torch::randint(0, 10, {8})).backward();
            optimizer->step();
        }
    }
};

bool sameTensors(torch::nn::Module &a, torch::nn::Module &b)
{
    const auto pa = a.named_parameters();
    const auto pb = b.named_parameters();
    for (const auto &item : pa) {
        if (!torch::equal(item.value(), pb[item.key()]))
            return false;
    }
    const auto ba = a.named_buffers();
    const auto bb = b.named_buffers();
    for (const auto &item : ba) {
        if (!torch::equal(item.value(), bb[item.key()]))
            return false;
    }
    return true;
}

} // namespace

TEST(TrainState, RoundTripRestoresModelOptimizerAndProgress)
{
    TrainRun a("resnet18", 1);
    a.steps(2);
    Progress p;
    p.epoch = 3;
    p.epochStep = 17;
    p.globalStep = 211;
    p.epochLossSum = 12.5;
    p.epochLossCount = 34;
    p.batchSize = 8;
    p.worldSize = 2;
    const std::vector<char> bytes = serializeTrainState(a.refs(), p, "{\"model\":\"resnet18\"}");

    TrainRun b("resnet18", 2);
    EXPECT_FALSE(sameTensors(*a.model, *b.model));
    Progress restored;
    ASSERT_EQ(restoreTrainState(bytes, b.refs(), restored), "");
    EXPECT_TRUE(sameTensors(*a.model, *b.model));
    EXPECT_EQ(b.optimizer->stepCount(), 2);
    for (std::size_t s = 0; s < a.optimizer->state().size(); ++s)
        EXPECT_TRUE(torch::equal(a.optimizer->state()[s].perGroup[0], b.optimizer->state()[s].perGroup[0]));
    EXPECT_EQ(restored.epoch, 3);
    EXPECT_EQ(restored.epochStep, 17);
    EXPECT_EQ(restored.globalStep, 211);
    EXPECT_DOUBLE_EQ(restored.epochLossSum, 12.5);
    EXPECT_EQ(restored.epochLossCount, 34);
    EXPECT_EQ(restored.worldSize, 2);

    // Both continue identically.
    torch::manual_seed(9);
    a.steps(1);
    torch::manual_seed(9);
    b.steps(1);
    EXPECT_TRUE(sameTensors(*a.model, *b.model));
}

TEST(TrainState, IsADictOfTensorsWithTorchvisionNames)
{
    TrainRun a("resnet18", 1);
    const auto bytes = serializeTrainState(a.refs(), Progress{}, "{}");
    const auto top = torch::pickle_load(bytes).toGenericDict();
    const auto model = top.at("model").toGenericDict();
    EXPECT_EQ(model.size(), 122u);
    EXPECT_TRUE(model.at("layer2.0.downsample.1.running_mean").isTensor());
    EXPECT_EQ(top.at("optimizer").toGenericDict().at("exp_avg").toGenericDict().size(), 62u);
    const auto tensors = checkpointModelTensors(bytes);
    EXPECT_EQ(tensors.size(), 122u);
}

TEST(TrainState, RejectsAMismatchWithoutTouchingTheModel)
{
    TrainRun toy("toy", 1);
    const auto bytes = serializeTrainState(toy.refs(), Progress{}, "{}");
    TrainRun other("resnet18", 2);
    const auto before = other.model->parameters()[0].clone();
    Progress p;
    EXPECT_NE(restoreTrainState(bytes, other.refs(), p), "");
    EXPECT_TRUE(torch::equal(before, other.model->parameters()[0]));

    std::vector<char> garbage(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2));
    EXPECT_NE(restoreTrainState(garbage, toy.refs(), p), "");
    EXPECT_NE(restoreTrainState({'n', 'o'}, toy.refs(), p), "");
}
