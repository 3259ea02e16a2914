// --nproc-per-node end to end (the built-in per-node launcher), signal forwarding, failure handling,
// and the process-level errors (exit codes 1 and 2).
#include "test_files.h"
#include "trainer_process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>

using namespace torchdeck::trainer::test;

namespace {

constexpr double kTolerance = 1e-6;

Args aeRun()
{
    return {"--device",     "cpu", "--model",     "ae", "--limit",   "1024", "--epochs", "2",
            "--batch-size", "32",  "--log-every", "4",  "--threads", "1",    "--seed",   "5"};
}

// Slow enough steps (ResNet-18) to signal or kill while training.
Args resnetRun()
{
    return {"--device",     "cpu", "--model",     "resnet18", "--limit",   "512", "--epochs", "1",
            "--batch-size", "16",  "--log-every", "1",        "--threads", "1",   "--seed",   "2"};
}

bool waitForEvent(const std::string &metrics, const std::string &event, int seconds)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        if (!events(metrics, event).empty())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

std::vector<pid_t> childrenOf(pid_t pid)
{
    std::vector<pid_t> children;
    std::istringstream in(readText("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children"));
    pid_t child;
    while (in >> child)
        children.push_back(child);
    return children;
}

} // namespace

TEST(Launcher, NprocPerNodeTwoEqualsTwoRanks)
{
    const ModelTensors reference = uninterruptedRun("ae2", 2, concat(aeRun(), {"--resume", "none"}));
    const std::string dir = freshDir("launcher_two");
    const Args run =
        concat(aeRun(), {"--nproc-per-node", "2", "--checkpoint-dir", dir + "/ckpt", "--metrics", dir + "/m.jsonl"});
    ASSERT_EQ(runTrainer(run, {}, dir + "/run.log"), 0) << readText(dir + "/run.log");
    const auto start = events(dir + "/m.jsonl", "start");
    ASSERT_EQ(start.size(), 1u) << "one start event: only rank 0 reports";
    EXPECT_NE(start[0].find("\"launcher\":\"torchrun\",\"world_size\":2"), std::string::npos) << start[0];
    EXPECT_NE(readText(dir + "/run.log").find("launched 2 workers"), std::string::npos);
    expectClose(newestModel(dir + "/ckpt"), reference, kTolerance);
}

TEST(Launcher, ExternalSignalIsForwardedAndTheRunResumes)
{
    const ModelTensors reference = uninterruptedRun("r18", 2, concat(resnetRun(), {"--resume", "none"}));
    const std::string dir = freshDir("launcher_signal");
    const Args run = concat(
        resnetRun(), {"--nproc-per-node", "2", "--checkpoint-dir", dir + "/ckpt", "--metrics", dir + "/m.jsonl"});
    const pid_t launcher = startTrainer(run, {}, dir + "/a.log");
    ASSERT_TRUE(waitForEvent(dir + "/m.jsonl", "step", 120)) << readText(dir + "/a.log");
    kill(launcher, SIGUSR1); // like `scancel --signal=USR1`: to the launcher, which forwards it
    ASSERT_EQ(waitTrainer(launcher, 120), 75) << readText(dir + "/a.log");
    const auto stop = events(dir + "/m.jsonl", "stop");
    ASSERT_EQ(stop.size(), 1u);
    EXPECT_NE(stop[0].find("\"reason\":\"signal\""), std::string::npos);
    ASSERT_EQ(events(dir + "/m.jsonl", "checkpoint").size(), 1u);

    ASSERT_EQ(runTrainer(run, {}, dir + "/b.log"), 0) << readText(dir + "/b.log");
    expectClose(newestModel(dir + "/ckpt"), reference, kTolerance);
}

TEST(Launcher, OneWorkerDyingStopsTheOthers)
{
    const std::string dir = freshDir("launcher_failure");
    const Args run = concat(resnetRun(), {"--nproc-per-node", "2", "--metrics", dir + "/m.jsonl", "--epochs", "5"});
    const pid_t launcher = startTrainer(run, {}, dir + "/run.log");
    ASSERT_TRUE(waitForEvent(dir + "/m.jsonl", "step", 120)) << readText(dir + "/run.log");
    const std::vector<pid_t> workers = childrenOf(launcher);
    ASSERT_EQ(workers.size(), 2u);
    kill(workers[1], SIGKILL);
    EXPECT_EQ(waitTrainer(launcher, 60), 128 + SIGKILL) << readText(dir + "/run.log");
    EXPECT_EQ(kill(workers[0], 0), -1) << "the surviving worker was stopped and reaped";
    EXPECT_EQ(errno, ESRCH);
    EXPECT_NE(readText(dir + "/run.log").find("a worker failed"), std::string::npos);
}

TEST(Errors, ExitCodes)
{
    const std::string dir = freshDir("errors");
    EXPECT_EQ(runTrainer({"--epochs", "zero"}, {}, dir + "/usage.log"), 2);
    EXPECT_NE(readText(dir + "/usage.log").find("--epochs: 'zero' is not an integer"), std::string::npos);
    EXPECT_EQ(runTrainer({"--help"}, {}, dir + "/help.log"), 0);
    EXPECT_EQ(runTrainer({"--limit", "8"}, {{"RANK", "x"}, {"WORLD_SIZE", "2"}}, dir + "/env.log"), 2);
    EXPECT_NE(readText(dir + "/env.log").find("RANK: 'x'"), std::string::npos);

    const Args missing = {"--data", "mnist:" + dir + "/nothing-here", "--metrics", dir + "/m.jsonl"};
    EXPECT_EQ(runTrainer(missing, {}, dir + "/data.log"), 1);
    EXPECT_NE(readText(dir + "/data.log").find("train-images-idx3-ubyte"), std::string::npos)
        << readText(dir + "/data.log");
    const auto stop = events(dir + "/m.jsonl", "stop");
    ASSERT_EQ(stop.size(), 1u);
    EXPECT_NE(stop[0].find("\"reason\":\"error\",\"exit_code\":1"), std::string::npos) << stop[0];
}

TEST(Metrics, EveryLineCarriesSchemaEventAndTime)
{
    const std::string dir = freshDir("metrics");
    const Args run = {
        "--device",     "cpu", "--model",     "toy", "--data",    "synthetic:256",  "--epochs",         "2",
        "--batch-size", "32",  "--log-every", "2",   "--metrics", dir + "/m.jsonl", "--checkpoint-dir", dir + "/ckpt"};
    ASSERT_EQ(runTrainer(run, {}, dir + "/run.log"), 0) << readText(dir + "/run.log");
    const auto lines = readLines(dir + "/m.jsonl");
    ASSERT_GE(lines.size(), 1u + 8u + 2u + 2u + 1u);
    for (const std::string &line : lines) {
        EXPECT_EQ(line.rfind("{\"schema\":1,\"event\":\"", 0), 0u) << line;
        EXPECT_NE(line.find("\"time\":"), std::string::npos) << line;
        EXPECT_EQ(line.back(), '}');
    }
    EXPECT_NE(lines.front().find("\"event\":\"start\""), std::string::npos);
    EXPECT_NE(lines.back().find("\"event\":\"stop\","), std::string::npos);
    EXPECT_NE(lines.back().find("\"reason\":\"done\",\"exit_code\":0"), std::string::npos);
    EXPECT_EQ(events(dir + "/m.jsonl", "step").size(), 8u); // 8 steps per epoch, every 2nd
    EXPECT_EQ(events(dir + "/m.jsonl", "epoch").size(), 2u);
    EXPECT_EQ(events(dir + "/m.jsonl", "checkpoint").size(), 2u);
    EXPECT_NE(events(dir + "/m.jsonl", "epoch")[1].find("\"val_accuracy\":0."), std::string::npos);
    EXPECT_NE(readText(dir + "/run.log").find("epoch: 2/2, loss = "), std::string::npos) << "the tutorials' line";
}

TEST(Data, MnistDirectoryOfRawAndGzippedIdxFiles)
{
    // mnist:DIR with a mix of raw and gzipped IDX files (as some mirrors ship them).
    const std::string dir = freshDir("mnist_dir");
    const auto images = [](std::uint32_t n) {
        std::vector<std::uint8_t> pixels(n * 28 * 28);
        for (std::size_t i = 0; i < pixels.size(); ++i)
            pixels[i] = static_cast<std::uint8_t>((i * 7) % 251);
        return idxBytes({n, 28, 28}, pixels);
    };
    const auto labels = [](std::uint32_t n) {
        std::vector<std::uint8_t> l(n);
        for (std::uint32_t i = 0; i < n; ++i)
            l[i] = static_cast<std::uint8_t>(i % 10);
        return idxBytes({n}, l);
    };
    writeGzip(dir + "/train-images-idx3-ubyte.gz", images(96));
    writeBytes(dir + "/train-labels-idx1-ubyte", labels(96));
    writeBytes(dir + "/t10k-images-idx3-ubyte", images(32));
    writeGzip(dir + "/t10k-labels-idx1-ubyte.gz", labels(32));
    const Args run = {"--device",     "cpu",          "--model", "toy",       "--data",
                      "mnist:" + dir, "--batch-size", "32",      "--metrics", dir + "/m.jsonl"};
    ASSERT_EQ(runTrainer(run, {}, dir + "/run.log"), 0) << readText(dir + "/run.log");
    const auto start = events(dir + "/m.jsonl", "start");
    ASSERT_EQ(start.size(), 1u);
    EXPECT_NE(start[0].find("\"train_samples\":96,\"val_samples\":32"), std::string::npos) << start[0];

    // A labels file that disagrees with the images is refused with both names.
    writeBytes(dir + "/train-labels-idx1-ubyte", labels(95));
    EXPECT_EQ(runTrainer(run, {}, dir + "/bad.log"), 1);
    EXPECT_NE(readText(dir + "/bad.log").find("holds 96 images but"), std::string::npos) << readText(dir + "/bad.log");
}
