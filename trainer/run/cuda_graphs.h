#pragma once

#include <string>

namespace torchdeck::trainer {

// What decides whether the steady-state training step can be captured once in a CUDA graph and replayed:
// everything on the step's path must be device work, its shapes fixed, its per-step values on the device.
struct CudaGraphsSetting {
    std::string mode = "auto"; // --cuda-graphs: auto | on | off
    bool cudaDevice = false;   // the rank computes on a GPU
    bool builtWithCuda = false;
    bool modelSpansDevices = false; // toy-split: two devices, two streams of work
    bool collectives = false;       // a process group all-reduces the gradients (several ranks, or a backend named)
    std::string backend;            // the process group's
    std::string optimizer;          // adam | sgd
    bool hostWaitsInStep = false;   // the testing aids sleep on the host inside a step
    std::string ncclSetting;        // an environment variable set that makes NCCL's calls uncapturable, or ""
};

struct CudaGraphsChoice {
    bool enabled = false;
    std::string why;   // "on", or "off: the reason"
    std::string error; // --cuda-graphs on where it cannot be: what stands in the way
};

CudaGraphsChoice chooseCudaGraphs(const CudaGraphsSetting &setting);

// TORCH_NCCL_BLOCKING_WAIT=1 (wait() then polls events recorded inside the capture) or TORCH_NCCL_NAN_CHECK=1
// (it reads device values in every collective), as `getenv` finds them; "" when neither is set.
std::string uncapturableNcclSetting(const char *(*getenv)(const char *));

// Whether the capture code was compiled (a CUDA LibTorch and -DTORCHDECK_CUDA_GRAPHS=ON).
bool builtWithCudaGraphs();

} // namespace torchdeck::trainer
