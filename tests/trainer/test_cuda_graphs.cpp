#include "run/cuda_graphs.h"

#include <gtest/gtest.h>
#include <map>
#include <string>
#include <torch/version.h>

using namespace torchdeck::trainer;

namespace {

// One GPU rank of a CUDA build, alone: nothing stands in the way.
CudaGraphsSetting gpuRank(const std::string &mode)
{
    CudaGraphsSetting s;
    s.mode = mode;
    s.cudaDevice = true;
    s.builtWithCuda = true;
    s.optimizer = "sgd";
    return s;
}

} // namespace

TEST(CudaGraphs, AutoCapturesWhereNothingStandsInTheWay)
{
    EXPECT_TRUE(chooseCudaGraphs(gpuRank("auto")).enabled);
    EXPECT_EQ(chooseCudaGraphs(gpuRank("on")).why, "on");
    CudaGraphsSetting nccl = gpuRank("auto");
    nccl.collectives = true;
    nccl.backend = "nccl";
    EXPECT_TRUE(chooseCudaGraphs(nccl).enabled); // NCCL's all-reduce is device work: it goes into the graph
}

TEST(CudaGraphs, OffIsOffEvenWhereItWouldWork)
{
    const CudaGraphsChoice c = chooseCudaGraphs(gpuRank("off"));
    EXPECT_FALSE(c.enabled);
    EXPECT_EQ(c.error, "");
    EXPECT_EQ(c.why, "off: --cuda-graphs off");
}

// Each obstacle: auto falls back to eager steps and says why; on refuses with the same reason.
TEST(CudaGraphs, EachObstacleTurnsAutoOffAndOnIntoAnError)
{
    struct Case {
        const char *reason;
        void (*apply)(CudaGraphsSetting &);
    };
    const Case cases[] = {
        {"no CUDA device", [](CudaGraphsSetting &s) { s.cudaDevice = false; }},
        {"built without the capture code", [](CudaGraphsSetting &s) { s.builtWithCuda = false; }},
        {"the model spans two devices", [](CudaGraphsSetting &s) { s.modelSpansDevices = true; }},
        {"the gloo all-reduce runs on the host",
         [](CudaGraphsSetting &s) {
             s.collectives = true;
             s.backend = "gloo";
         }},
        {"testing aid", [](CudaGraphsSetting &s) { s.hostWaitsInStep = true; }},
        {"TORCH_NCCL_BLOCKING_WAIT=1 makes NCCL's calls uncapturable",
         [](CudaGraphsSetting &s) {
             s.collectives = true;
             s.backend = "nccl";
             s.ncclSetting = "TORCH_NCCL_BLOCKING_WAIT=1";
         }},
    };
    for (const Case &c : cases) {
        CudaGraphsSetting automatic = gpuRank("auto");
        c.apply(automatic);
        const CudaGraphsChoice off = chooseCudaGraphs(automatic);
        EXPECT_FALSE(off.enabled) << c.reason;
        EXPECT_EQ(off.error, "") << c.reason;
        EXPECT_EQ(off.why.rfind("off: ", 0), 0u) << off.why;
        EXPECT_NE(off.why.find(c.reason), std::string::npos) << off.why;

        CudaGraphsSetting forced = gpuRank("on");
        c.apply(forced);
        const CudaGraphsChoice refused = chooseCudaGraphs(forced);
        EXPECT_FALSE(refused.enabled) << c.reason;
        EXPECT_EQ(refused.error.rfind("--cuda-graphs on: ", 0), 0u) << refused.error;
        EXPECT_NE(refused.error.find(c.reason), std::string::npos) << refused.error;
    }
}

TEST(CudaGraphs, AdamNeedsTheFusedKernelOfLibTorch2)
{
    CudaGraphsSetting adam = gpuRank("auto");
    adam.optimizer = "adam";
    EXPECT_EQ(chooseCudaGraphs(adam).enabled, TORCH_VERSION_MAJOR >= 2);
}

TEST(CudaGraphs, FindsTheNcclSettingsThatCannotBeCaptured)
{
    static std::map<std::string, std::string> environment;
    const auto lookup = [](const char *name) -> const char * {
        const auto it = environment.find(name);
        return it == environment.end() ? nullptr : it->second.c_str();
    };
    environment = {{"TORCH_NCCL_BLOCKING_WAIT", "0"}, {"NCCL_DEBUG", "INFO"}};
    EXPECT_EQ(uncapturableNcclSetting(lookup), "");
    environment["NCCL_BLOCKING_WAIT"] = "1"; // the older spelling
    EXPECT_EQ(uncapturableNcclSetting(lookup), "NCCL_BLOCKING_WAIT=1");
    environment = {{"TORCH_NCCL_NAN_CHECK", "1"}};
    EXPECT_EQ(uncapturableNcclSetting(lookup), "TORCH_NCCL_NAN_CHECK=1");
}
