#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <chrono>
#include <functional>
#include <memory>

namespace torchdeck::trainer {

struct Batch;

// The steady-state training step as one CUDA graph: recorded once from a full batch, then replayed for each
// further full batch, copied first into the graph's static input and target buffers. One launch instead of
// hundreds of kernel launches and the host work between them.
class StepGraph {
public:
    virtual ~StepGraph() = default;
    virtual bool captured() const = 0;
    // Records `step` run on static copies of `first` (it must return the batch's loss). Nothing runs yet:
    // replay(first) runs it.
    virtual void capture(const Batch &first, const std::function<at::Tensor(const Batch &)> &step) = 0;
    // Runs the recorded step on `batch`; its loss is a static tensor that the next replay overwrites.
    virtual at::Tensor replay(const Batch &batch) = 0;
    // Waits until the replays so far have run on the device. NCCL's watchdog never sees the all-reduces inside
    // a graph, so a rank that stopped would hang the others' next read of a device value forever: this wait
    // throws instead when `timeout` passes first.
    virtual void awaitReplays(std::chrono::seconds timeout) = 0;
};

// While alive, this rank's CUDA work runs on a stream of its own on its device (made current too), after all
// work before it; when it ends, the default stream waits for that stream. Captured work must be recorded on
// the stream the autograd engine already uses for the parameters' gradient accumulators, and they take the
// stream current when they are made: so the whole run, from before the model is placed, runs on it.
class TrainingStream {
public:
    virtual ~TrainingStream() = default;
};

// Null where this trainer was built without the capture code (chooseCudaGraphs never enables graphs there).
std::unique_ptr<StepGraph> makeStepGraph();
std::unique_ptr<TrainingStream> enterTrainingStream(const c10::Device &device);

} // namespace torchdeck::trainer
