#include "run/cuda_graphs.h"

#include "run/step_graph.h"

#include <torch/version.h>

namespace torchdeck::trainer {

namespace {

// The first thing that keeps the step out of a graph, or "".
std::string obstacle(const CudaGraphsSetting &s)
{
    if (!s.cudaDevice)
        return "no CUDA device (--device cpu, or none found)";
    if (!s.builtWithCuda)
        return "this trainer was built without the capture code (a CUDA LibTorch and -DTORCHDECK_CUDA_GRAPHS=ON)";
    if (s.modelSpansDevices)
        return "the model spans two devices";
    if (s.collectives && s.backend != "nccl")
        return "the " + s.backend + " all-reduce runs on the host (NCCL can be captured)";
    if (s.optimizer == "adam" && TORCH_VERSION_MAJOR < 2)
        return "Adam's step computes its bias correction on the host before LibTorch 2's fused kernel";
    if (s.collectives && !s.ncclSetting.empty())
        return s.ncclSetting + " makes NCCL's calls uncapturable";
    if (s.hostWaitsInStep)
        return "a testing aid (--sleep-in-step, --slow-rank) sleeps on the host inside the step";
    return {};
}

} // namespace

CudaGraphsChoice chooseCudaGraphs(const CudaGraphsSetting &setting)
{
    CudaGraphsChoice choice;
    if (setting.mode == "off") {
        choice.why = "off: --cuda-graphs off";
        return choice;
    }
    const std::string reason = obstacle(setting);
    if (reason.empty()) {
        choice.enabled = true;
        choice.why = "on";
    } else if (setting.mode == "on") {
        choice.error = "--cuda-graphs on: " + reason + "; auto or off trains without graphs";
    } else {
        choice.why = "off: " + reason;
    }
    return choice;
}

std::string uncapturableNcclSetting(const char *(*getenv)(const char *))
{
    for (const char *name : {"TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT", "TORCH_NCCL_NAN_CHECK"}) {
        const char *value = getenv(name);
        if (value != nullptr && std::string(value) == "1")
            return std::string(name) + "=1";
    }
    return {};
}

#ifndef TORCHDECK_WITH_CUDA_GRAPHS
std::unique_ptr<StepGraph> makeStepGraph()
{
    return nullptr;
}

std::unique_ptr<TrainingStream> enterTrainingStream(const c10::Device &)
{
    return nullptr;
}
#endif

bool builtWithCudaGraphs()
{
#ifdef TORCHDECK_WITH_CUDA_GRAPHS
    return true;
#else
    return false;
#endif
}

} // namespace torchdeck::trainer
