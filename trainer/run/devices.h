#pragma once

#include <c10/core/Device.h>
#include <string>
#include <vector>

namespace torchdeck::trainer {

struct LaunchEnv;
struct Options;

// Where this rank computes and which backend connects the ranks.
struct DevicePlan {
    c10::Device dataDevice = c10::Device(c10::kCPU); // batches and the model's input
    std::vector<c10::Device> modelDevices;           // 1, or 2 for a model split over devices
    std::string backend = "auto";                    // asked of connectCommunicator; "auto" on CPU: shm or gloo
    bool cuda = false;
    std::string describe() const;
};

// Resolves --device/--backend against what this build and machine have; throws std::invalid_argument
// for an impossible request (cuda without a GPU, nccl without CUDA).
DevicePlan planDevices(const Options &options, const LaunchEnv &env, bool modelParallel);

} // namespace torchdeck::trainer
