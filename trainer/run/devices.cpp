#include "run/devices.h"

#include "cli/options.h"
#include "dist/communicator.h"
#include "dist/launch_env.h"

#include <stdexcept>
#include <torch/cuda.h>

namespace torchdeck::trainer {

std::string DevicePlan::describe() const
{
    std::string text;
    for (const c10::Device &d : modelDevices)
        text += (text.empty() ? "" : "+") + d.str();
    return text;
}

DevicePlan planDevices(const Options &options, const LaunchEnv &env, bool modelParallel)
{
    DevicePlan plan;
    const bool haveCuda = torch::cuda::is_available();
    if (options.device == "cuda" && !haveCuda)
        throw std::invalid_argument("--device cuda: no CUDA device (or LibTorch built without CUDA)");
    plan.cuda = options.device == "cuda" || (options.device == "auto" && haveCuda);
    if (plan.cuda) {
        const auto count = static_cast<int>(torch::cuda::device_count());
        // Model parallel: local rank r uses GPUs 2r and 2r+1 (wrapping when there are fewer).
        const int perRank = modelParallel ? 2 : 1;
        const int first = (env.localRank * perRank) % count;
        plan.dataDevice = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(first));
        plan.modelDevices.push_back(plan.dataDevice);
        if (modelParallel)
            plan.modelDevices.push_back(c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>((first + 1) % count)));
    } else {
        plan.modelDevices.push_back(plan.dataDevice);
        if (modelParallel)
            plan.modelDevices.push_back(plan.dataDevice); // both halves on the CPU
    }
    if (options.backend == "nccl" && !(plan.cuda && ncclAvailable()))
        throw std::invalid_argument("--backend nccl needs CUDA tensors and a LibTorch with NCCL");
    if (options.backend == "gloo" && !glooAvailable())
        throw std::invalid_argument("--backend gloo: this build has no Gloo backend (its LibTorch came "
                                    "without gloo headers); use shm on one host or nccl");
    if (options.backend == "shm" && plan.cuda)
        throw std::invalid_argument("--backend shm is for CPU tensors");
    plan.backend = options.backend;
    if (plan.backend == "auto" && plan.cuda)
        plan.backend = ncclAvailable() ? "nccl" : "gloo";
    return plan;
}

} // namespace torchdeck::trainer
