#pragma once

#include <ATen/core/Tensor.h>
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
};

// Null where this trainer was built without the capture code (chooseCudaGraphs never enables graphs there).
std::unique_ptr<StepGraph> makeStepGraph();

} // namespace torchdeck::trainer
