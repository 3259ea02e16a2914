#include "cli/options.h"

#include <csignal>
#include <gtest/gtest.h>

using namespace torchdeck::trainer;

TEST(Options, Defaults)
{
    const ParseResult r = parseOptions({});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.options.model, "ae");
    EXPECT_EQ(r.options.data, "fashion-mnist");
    EXPECT_EQ(r.options.resume, "auto");
    EXPECT_EQ(r.options.checkpointEverySteps, 0);
    EXPECT_EQ(r.options.cudaGraphs, "auto");
    EXPECT_EQ(r.options.stopSignals, (std::vector<int>{SIGUSR1, SIGUSR2, SIGTERM}));
}

TEST(Options, EveryFlagOfTheIssue)
{
    const ParseResult r = parseOptions({"--model",
                                        "resnet18",
                                        "--data=mnist:/x",
                                        "--epochs",
                                        "3",
                                        "--batch-size",
                                        "32",
                                        "--lr",
                                        "0.01",
                                        "--optimizer",
                                        "sgd",
                                        "--seed",
                                        "7",
                                        "--metrics",
                                        "m.jsonl",
                                        "--checkpoint-dir",
                                        "ck",
                                        "--checkpoint-every",
                                        "100",
                                        "--keep",
                                        "2",
                                        "--resume",
                                        "none",
                                        "--backend",
                                        "gloo",
                                        "--threads",
                                        "2",
                                        "--nproc-per-node",
                                        "4",
                                        "--limit",
                                        "1000",
                                        "--log-every",
                                        "10",
                                        "--cuda-graphs",
                                        "off"});
    ASSERT_EQ(r.error, "");
    const Options &o = r.options;
    EXPECT_EQ(o.model, "resnet18");
    EXPECT_EQ(o.data, "mnist:/x");
    EXPECT_EQ(o.epochs, 3);
    EXPECT_EQ(o.batchSize, 32);
    EXPECT_DOUBLE_EQ(o.lr, 0.01);
    EXPECT_EQ(o.optimizer, "sgd");
    EXPECT_EQ(o.seed, 7u);
    EXPECT_EQ(o.metricsPath, "m.jsonl");
    EXPECT_EQ(o.checkpointDir, "ck");
    EXPECT_EQ(o.checkpointEverySteps, 100);
    EXPECT_EQ(o.keep, 2);
    EXPECT_EQ(o.resume, "none");
    EXPECT_EQ(o.backend, "gloo");
    EXPECT_EQ(o.threads, 2);
    EXPECT_EQ(o.nprocPerNode, 4);
    EXPECT_EQ(o.limit, 1000);
    EXPECT_EQ(o.logEvery, 10);
    EXPECT_EQ(o.cudaGraphs, "off");
}

TEST(Options, CheckpointEveryEpoch)
{
    const ParseResult r = parseOptions({"--checkpoint-every", "100", "--checkpoint-every", "epoch"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.options.checkpointEverySteps, 0);
}

TEST(Options, StopSignals)
{
    ParseResult r = parseOptions({"--stop-signals", "SIGUSR2,TERM"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.options.stopSignals, (std::vector<int>{SIGUSR2, SIGTERM}));
    r = parseOptions({"--stop-signals", "none"});
    ASSERT_EQ(r.error, "");
    EXPECT_TRUE(r.options.stopSignals.empty());
}

TEST(Options, HelpListsEveryFlag)
{
    EXPECT_TRUE(parseOptions({"--help"}).options.help);
    EXPECT_TRUE(parseOptions({"-h"}).options.help);
    const std::string usage = usageText();
    for (const char *flag : {"--model", "--data", "--epochs", "--batch-size", "--lr", "--optimizer", "--seed",
                             "--metrics", "--checkpoint-dir", "--checkpoint-every", "--keep", "--resume", "--backend",
                             "--threads", "--nproc-per-node", "--limit", "--log-every", "--stop-signals", "75"})
        EXPECT_NE(usage.find(flag), std::string::npos) << flag;
}

struct BadCase {
    std::vector<std::string> args;
    std::string expected; // a piece of the message
};

class BadOptions : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadOptions, ClearError)
{
    const ParseResult r = parseOptions(GetParam().args);
    EXPECT_NE(r.error.find(GetParam().expected), std::string::npos) << "got: " << r.error;
}

INSTANTIATE_TEST_SUITE_P(
    Table, BadOptions,
    ::testing::Values(BadCase{{"--epochs", "0"}, "--epochs: '0' is out of range"},
                      BadCase{{"--epochs", "two"}, "--epochs: 'two' is not an integer"},
                      BadCase{{"--epochs", "3x"}, "not an integer"}, BadCase{{"--batch-size", "-4"}, "out of range"},
                      BadCase{{"--batch-size", "99999999999999999999"}, "out of range"},
                      BadCase{{"--lr", "0"}, "must be greater than 0"},
                      BadCase{{"--lr", "fast"}, "'fast' is not a number"}, BadCase{{"--lr", "nan"}, "not a number"},
                      BadCase{{"--model", "vgg"}, "'vgg' is not one of: ae, toy"},
                      BadCase{{"--optimizer", "lamb"}, "not one of: adam, sgd"},
                      BadCase{{"--backend", "mpi"}, "not one of: auto, gloo, nccl, shm"},
                      BadCase{{"--cuda-graphs", "yes"}, "'yes' is not one of: auto, on, off"},
                      BadCase{{"--checkpoint-every", "often"}, "expected 'epoch' or a number"},
                      BadCase{{"--keep", "0"}, "out of range"}, BadCase{{"--nproc-per-node", "0"}, "out of range"},
                      BadCase{{"--stop-signals", "USR1,BOGUS"}, "unknown signal 'BOGUS'"},
                      BadCase{{"--epochs"}, "--epochs needs a value"}, BadCase{{"--channels-last=1"}, "takes no value"},
                      BadCase{{"--metrics", ""}, "empty value"},
                      BadCase{{"--frobnicate"}, "unknown option '--frobnicate'"},
                      BadCase{{"extra"}, "unknown option 'extra'"}));
