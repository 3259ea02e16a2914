// The bucketed reducer over a real Gloo process group: two ranks as two threads of this process.
#include "dist/communicator.h"
#include "dist/gradient_reducer.h"
#include "dist/launch_env.h"
#include "dist/worker_launcher.h"
#include "models/model_factory.h"
#include "models/trainable_model.h"
#include "optim/flat_parameters.h"

#include <gtest/gtest.h>
#include <thread>
#include <torch/torch.h>

using namespace torchdeck::trainer;

namespace {

struct RankResult {
    at::Tensor grads;
    std::size_t buckets = 0;
    std::size_t launchedInBackward = 0;
    std::vector<float> controls;
    std::string error;
};

at::Tensor localGradients(const at::Tensor &input)
{
    torch::manual_seed(1);
    auto model = makeModel("ae", {784}, 10);
    FlatParameters params(*model);
    torch::mse_loss(model->forward(input), input).backward();
    return params.groups()[0].grads.clone();
}

} // namespace

class GradientReducerOver : public ::testing::TestWithParam<std::string> {};

TEST_P(GradientReducerOver, AveragesBucketsLaunchedDuringBackward)
{
    if (GetParam() == "gloo" && !glooAvailable())
        GTEST_SKIP() << "this build has no Gloo backend (LibTorch without gloo headers)";
    const int port = findFreePort();
    torch::manual_seed(7);
    const std::vector<at::Tensor> inputs = {torch::rand({8, 784}), torch::rand({8, 784})};
    std::vector<std::shared_ptr<TrainableModel>> models;
    for (int rank = 0; rank < 2; ++rank) {
        torch::manual_seed(1);
        models.push_back(makeModel("ae", {784}, 10));
    }
    std::vector<RankResult> results(2);
    auto rankMain = [&](int rank) {
        try {
            LaunchEnv env;
            env.kind = LaunchKind::Torchrun;
            env.rank = rank;
            env.worldSize = 2;
            env.masterAddr = "127.0.0.1";
            env.masterPort = port;
            CommunicatorConfig config;
            config.backend = GetParam();
            config.timeout = std::chrono::seconds(60);
            auto comm = connectCommunicator(env, config);
            FlatParameters params(*models[rank]);
            GradientReducer reducer(params, *comm, 64 * 1024); // 64 KiB buckets: several for the 0.9 MB model
            for (int step = 0; step < 2; ++step) {             // twice: the reducer re-arms every step
                params.zeroGrads();
                reducer.prepare(rank == 1 && step == 1 ? 1.0f : 0.0f); // rank 1's stop flag, 2nd step
                torch::mse_loss(models[rank]->forward(inputs[rank]), inputs[rank]).backward();
                results[rank].launchedInBackward = reducer.launchedDuringBackward();
                reducer.finish();
                results[rank].controls.push_back(reducer.control());
            }
            results[rank].grads = params.groups()[0].grads.clone();
            results[rank].buckets = reducer.bucketCount();
        } catch (const std::exception &e) {
            results[rank].error = e.what();
        }
    };
    std::thread r1(rankMain, 1);
    rankMain(0);
    r1.join();
    ASSERT_EQ(results[0].error, "");
    ASSERT_EQ(results[1].error, "");

    const at::Tensor expected = (localGradients(inputs[0]) + localGradients(inputs[1])) / 2;
    EXPECT_TRUE(torch::equal(results[0].grads, results[1].grads)) << "every rank holds the same average";
    EXPECT_LT((results[0].grads - expected).abs().max().item<double>(), 1e-7);
    EXPECT_GE(results[0].buckets, 4u);
    // Every bucket's allreduce was started from a gradient hook, i.e. while backward was running.
    EXPECT_EQ(results[0].launchedInBackward, results[0].buckets);
    EXPECT_EQ(results[1].launchedInBackward, results[1].buckets);
    // The control value (the stop flag) rode along: every rank sees the same average.
    for (const RankResult &r : results)
        EXPECT_EQ(r.controls, (std::vector<float>{0.0f, 0.5f}));
}

// Named by backend, so the tsan preset can pick the shm case (Gloo's own threads are not instrumented).
INSTANTIATE_TEST_SUITE_P(Backends, GradientReducerOver, ::testing::Values("gloo", "shm"),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });
