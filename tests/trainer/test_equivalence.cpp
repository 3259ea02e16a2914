// Data parallel correctness: W ranks with batch b reach the parameters of one process with batch W*b on
// the same global sample order (the gradient reducer averages; the sampler interleaves).
#include "dist/communicator.h"
#include "test_files.h"
#include "trainer_process.h"

#include <cstdio>
#include <gtest/gtest.h>

using namespace torchdeck::trainer::test;

namespace {

constexpr double kTolerance = 1e-5;

Args common(const std::string &model)
{
    return {"--device", "cpu",      "--model", model,         "--data", "fashion-mnist", "--limit",
            "1024",     "--epochs", "2",       "--log-every", "8",      "--threads",     "1",
            "--resume", "none",     "--seed",  "3",           "--lr",   "0.002"};
}

void expectSameParameters(const std::string &model, const std::string &backend, const Args &extra = {})
{
    if (backend == "gloo" && !torchdeck::trainer::glooAvailable())
        GTEST_SKIP() << "this build has no Gloo backend (LibTorch without gloo headers)";
    const std::string dir = freshDir("equivalence_" + model + "_" + backend);
    const Args single = concat(concat(common(model), extra), {"--batch-size", "64", "--checkpoint-dir", dir + "/one",
                                                              "--metrics", dir + "/one.jsonl"});
    ASSERT_EQ(runTrainer(single, {}, dir + "/one.log"), 0) << readText(dir + "/one.log");
    const Args two = concat(concat(common(model), concat(extra, {"--backend", backend})),
                            {"--batch-size", "32", "--checkpoint-dir", dir + "/two", "--metrics", dir + "/two.jsonl"});
    const auto codes = runRanks(2, two, dir + "/two");
    ASSERT_EQ(codes, (std::vector<int>{0, 0})) << readText(dir + "/two.rank0.log") << readText(dir + "/two.rank1.log");

    const ModelTensors one = newestModel(dir + "/one");
    const ModelTensors both = newestModel(dir + "/two");
    ASSERT_FALSE(one.empty());
    expectClose(one, both, kTolerance);
    // The runs really trained: parameters moved away from the initial ones.
    const auto start = events(dir + "/two.jsonl", "start");
    ASSERT_EQ(start.size(), 1u);
    EXPECT_NE(start[0].find("\"world_size\":2"), std::string::npos) << start[0];
    EXPECT_NE(start[0].find("\"backend\":\"" + backend + "\""), std::string::npos) << start[0];
    EXPECT_EQ(events(dir + "/two.jsonl", "epoch").size(), 2u);
    EXPECT_TRUE(events(dir + "/two.jsonl", "epoch").size() == events(dir + "/one.jsonl", "epoch").size());
    // Rank 1 writes no metrics and no checkpoints.
    EXPECT_NE(readText(dir + "/two.rank0.log").find("epoch: 2/2"), std::string::npos);
    EXPECT_EQ(readText(dir + "/two.rank1.log").find("epoch: 2/2"), std::string::npos);
}

} // namespace

TEST(Equivalence, AutoEncoderTwoRanksEqualOneProcessWithTwiceTheBatch)
{
    expectSameParameters("ae", "shm");
    // The comparison is sensitive: two ranks with the SAME per-rank batch as the single process (a twice
    // larger global batch) end somewhere else.
    const std::string dir = freshDir("equivalence_control");
    const Args two = concat(common("ae"), {"--batch-size", "64", "--checkpoint-dir", dir + "/two"});
    ASSERT_EQ(runRanks(2, two, dir + "/two"), (std::vector<int>{0, 0}));
    const double diff = maxDifference(newestModel(std::string(TORCHDECK_TEST_WORK_DIR) + "/equivalence_ae_shm/one"),
                                      newestModel(dir + "/two"));
    std::printf("    control (global batch 128 vs 64): max |difference| %.3g\n", diff);
    EXPECT_GT(diff, 1e-3);
}

TEST(Equivalence, AutoEncoderOverGloo)
{
    expectSameParameters("ae", "gloo");
}

TEST(Equivalence, ToyModelTwoRanksEqualOneProcessWithTwiceTheBatch)
{
    expectSameParameters("toy", "shm");
}

TEST(Equivalence, ToySplitWithSgdAndSmallBuckets)
{
    // Model parallel halves (both on the CPU here), SGD with momentum, one bucket per parameter, Gloo.
    expectSameParameters("toy-split", "gloo",
                         {"--optimizer", "sgd", "--momentum", "0.9", "--lr", "0.05", "--bucket-mb", "0.001"});
}

// --cuda-graphs on a machine without a GPU: auto trains exactly as off (the same eager steps) and says why in
// the start event; on refuses at once with the reason, on the terminal and in the stop event.
TEST(CudaGraphs, WithoutAGpuAutoTrainsAsOffAndOnIsRefused)
{
    const std::string dir = freshDir("cuda_graphs_cpu");
    const Args base = concat(common("ae"), {"--batch-size", "64"});
    ASSERT_EQ(
        runTrainer(concat(base, {"--cuda-graphs", "off", "--checkpoint-dir", dir + "/off"}), {}, dir + "/off.log"), 0)
        << readText(dir + "/off.log");
    ASSERT_EQ(runTrainer(concat(base, {"--checkpoint-dir", dir + "/auto", "--metrics", dir + "/auto.jsonl"}), {},
                         dir + "/auto.log"),
              0)
        << readText(dir + "/auto.log");
    EXPECT_EQ(maxDifference(newestModel(dir + "/off"), newestModel(dir + "/auto")), 0.0);
    const auto start = events(dir + "/auto.jsonl", "start");
    ASSERT_EQ(start.size(), 1u);
    EXPECT_NE(start[0].find("\"cuda_graphs\":\"off: no CUDA device"), std::string::npos) << start[0];

    ASSERT_EQ(runTrainer(concat(base, {"--cuda-graphs", "on", "--metrics", dir + "/on.jsonl"}), {}, dir + "/on.log"),
              1);
    const std::string log = readText(dir + "/on.log");
    EXPECT_NE(log.find("error: --cuda-graphs on: no CUDA device"), std::string::npos) << log;
    const auto stop = events(dir + "/on.jsonl", "stop");
    ASSERT_EQ(stop.size(), 1u);
    EXPECT_NE(stop[0].find("--cuda-graphs on: no CUDA device"), std::string::npos) << stop[0];
    EXPECT_TRUE(events(dir + "/on.jsonl", "step").empty());
}
