// Checkpoint-restart: a run stopped by a signal mid-epoch and resumed ends where the uninterrupted run
// ends; every rank agrees on the stop step; a torn newest checkpoint falls back to the previous one.
#include "checkpoint/checkpoint_files.h"
#include "test_files.h"
#include "trainer_process.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace torchdeck::trainer;
using namespace torchdeck::trainer::test;

namespace {

constexpr double kTolerance = 1e-6;
constexpr int kRequeue = 75;

// 1024 samples, batch 64 per process: 16 steps per epoch (8 per rank with 2 ranks of 32).
Args aeRun(const std::string &batch)
{
    return {"--device",     "cpu", "--model",     "ae", "--limit",   "1024", "--epochs", "2",
            "--batch-size", batch, "--log-every", "4",  "--threads", "1",    "--seed",   "5"};
}

bool contains(const std::string &text, const std::string &piece)
{
    return text.find(piece) != std::string::npos;
}

} // namespace

TEST(Resume, SignalMidEpochThenResumeEqualsUninterrupted)
{
    const ModelTensors reference = uninterruptedRun("ae1", 1, concat(aeRun("64"), {"--resume", "none"}));
    const std::string dir = freshDir("resume_single");
    const Args run = concat(aeRun("64"), {"--checkpoint-dir", dir + "/ckpt", "--metrics", dir + "/m.jsonl"});
    // The signal is raised after step 5; the stop is agreed at the next step check: after step 6.
    ASSERT_EQ(runTrainer(concat(run, {"--signal-at-step", "5"}), {}, dir + "/a.log"), kRequeue)
        << readText(dir + "/a.log");
    const auto files = listCheckpoints(dir + "/ckpt");
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].step, 6);
    const auto stop = events(dir + "/m.jsonl", "stop");
    ASSERT_EQ(stop.size(), 1u);
    EXPECT_TRUE(contains(stop[0], "\"reason\":\"signal\"") && contains(stop[0], "\"exit_code\":75")) << stop[0];
    EXPECT_TRUE(contains(stop[0], "\"signal\":\"SIGUSR1\"")) << stop[0];

    ASSERT_EQ(runTrainer(run, {}, dir + "/b.log"), 0) << readText(dir + "/b.log");
    const auto starts = events(dir + "/m.jsonl", "start");
    ASSERT_EQ(starts.size(), 2u);
    EXPECT_TRUE(contains(starts[1], "\"resume\":{\"path\":\"" + files[0].path + "\",\"epoch\":0,\"step\":6"))
        << starts[1];
    expectClose(newestModel(dir + "/ckpt"), reference, kTolerance);
    // One continuous story: the epoch events of both processes cover epochs 1 and 2 once.
    EXPECT_EQ(events(dir + "/m.jsonl", "epoch").size(), 2u);
}

TEST(Resume, TwoRanksAgreeOnTheStopStepAndResume)
{
    const ModelTensors reference = uninterruptedRun("ae2", 2, concat(aeRun("32"), {"--resume", "none"}));
    const std::string dir = freshDir("resume_two_ranks");
    const Args run = concat(aeRun("32"), {"--checkpoint-dir", dir + "/ckpt", "--metrics", dir + "/m.jsonl"});
    // Only rank 1 gets the signal (after step 3); rank 0 learns it through the per-step flag allreduce.
    const auto codes = runRanks(2, run, dir + "/a", {{}, {"--signal-at-step", "3"}});
    ASSERT_EQ(codes, (std::vector<int>{kRequeue, kRequeue})) << readText(dir + "/a.rank0.log");
    const auto files = listCheckpoints(dir + "/ckpt");
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].step, 4);
    EXPECT_EQ(runRanks(2, run, dir + "/b"), (std::vector<int>{0, 0})) << readText(dir + "/b.rank0.log");
    expectClose(newestModel(dir + "/ckpt"), reference, kTolerance);
}

TEST(Resume, StopAtTheLastStepOfAnEpoch)
{
    const ModelTensors reference = uninterruptedRun("ae1", 1, concat(aeRun("64"), {"--resume", "none"}));
    const std::string dir = freshDir("resume_epoch_end");
    const Args run = concat(aeRun("64"), {"--checkpoint-dir", dir + "/ckpt", "--metrics", dir + "/m.jsonl"});
    ASSERT_EQ(runTrainer(concat(run, {"--signal-at-step", "15"}), {}, dir + "/a.log"), kRequeue);
    EXPECT_EQ(listCheckpoints(dir + "/ckpt").front().step, 16);
    ASSERT_EQ(runTrainer(run, {}, dir + "/b.log"), 0) << readText(dir + "/b.log");
    expectClose(newestModel(dir + "/ckpt"), reference, kTolerance);
    EXPECT_EQ(events(dir + "/m.jsonl", "epoch").size(), 2u);
}

TEST(Resume, TornNewestCheckpointFallsBackToThePrevious)
{
    const ModelTensors reference = uninterruptedRun("ae1", 1, concat(aeRun("64"), {"--resume", "none"}));
    const std::string dir = freshDir("resume_fallback");
    const Args run = concat(aeRun("64"), {"--checkpoint-dir", dir + "/ckpt", "--metrics", dir + "/m.jsonl",
                                          "--checkpoint-every", "4", "--keep", "3"});
    ASSERT_EQ(runTrainer(concat(run, {"--signal-at-step", "9"}), {}, dir + "/a.log"), kRequeue);
    auto files = listCheckpoints(dir + "/ckpt");
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(files[0].step, 10);
    EXPECT_EQ(files[1].step, 8);
    // Tear the newest (as if the node died while writing it).
    std::filesystem::resize_file(files[0].path, std::filesystem::file_size(files[0].path) / 2);

    ASSERT_EQ(runTrainer(run, {}, dir + "/b.log"), 0) << readText(dir + "/b.log");
    const auto starts = events(dir + "/m.jsonl", "start");
    ASSERT_EQ(starts.size(), 2u);
    EXPECT_TRUE(contains(starts[1], files[1].path) && contains(starts[1], "\"skipped\":1")) << starts[1];
    EXPECT_TRUE(contains(readText(dir + "/b.log"), "warning:")) << "the torn file is reported";
    expectClose(newestModel(dir + "/ckpt"), reference, kTolerance);
}

TEST(Resume, AllCheckpointsUnusableIsAnError)
{
    const std::string dir = freshDir("resume_unusable");
    const Args run = concat(aeRun("64"), {"--checkpoint-dir", dir + "/ckpt", "--epochs", "1", "--limit", "128"});
    ASSERT_EQ(runTrainer(run, {}, dir + "/a.log"), 0) << readText(dir + "/a.log");
    for (const auto &f : listCheckpoints(dir + "/ckpt"))
        std::filesystem::resize_file(f.path, 100);
    EXPECT_EQ(runTrainer(run, {}, dir + "/b.log"), 1);
    EXPECT_TRUE(contains(readText(dir + "/b.log"), "none of the 1 checkpoints")) << readText(dir + "/b.log");
}

TEST(Resume, RequeueExitWaitsUntilTheCheckpointIsDurable)
{
    // mpirun kills every rank as soon as one exits with a non-zero code, 75 included. No rank may exit
    // before rank 0's checkpoint is written, fsync'ed and renamed. ResNet-18: its checkpoint (weights and
    // Adam state, ~140 MB) takes long enough to write that a rank leaving early gets rank 0 killed
    // mid-write, and no checkpoint is left.
    const std::string dir = freshDir("resume_mpirun_kill");
    const Args run = {"--device",    "cpu", "--model",      "resnet18", "--limit",          "256",
                      "--epochs",    "1",   "--batch-size", "8",        "--threads",        "1",
                      "--log-every", "1",   "--seed",       "2",        "--checkpoint-dir", dir + "/ckpt"};
    // Only rank 1 is signalled (after step 2); both stop after step 3.
    const auto codes = runRanksLikeMpirun(2, run, dir + "/a", {{}, {"--signal-at-step", "2"}}, 240);
    const std::string logs = readText(dir + "/a.rank0.log") + readText(dir + "/a.rank1.log");
    ASSERT_EQ(codes.size(), 2u);
    EXPECT_TRUE(codes[0] == kRequeue || codes[1] == kRequeue) << codes[0] << " " << codes[1] << "\n" << logs;
    const auto files = listCheckpoints(dir + "/ckpt");
    ASSERT_EQ(files.size(), 1u) << "rank 0 was killed before its checkpoint was complete\n" << logs;
    EXPECT_EQ(files[0].step, 3);
    EXPECT_EQ(verifyCheckpoint(files[0].path).check, CheckpointCheck::Ok);
}
