// Built only against a CUDA LibTorch, with -DTORCHDECK_CUDA_GRAPHS=ON.
#include "run/batch.h"
#include "run/step_graph.h"

#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace torchdeck::trainer {

namespace {

class CudaStepGraph final : public StepGraph {
public:
    bool captured() const override { return captured_; }

    void capture(const Batch &first, const std::function<at::Tensor(const Batch &)> &step) override
    {
        static_.inputs = first.inputs.clone(at::MemoryFormat::Preserve);
        static_.targets = first.targets.clone(at::MemoryFormat::Preserve);
        // A graph is captured on a stream of its own (never the default stream), after the work before it.
        const c10::cuda::CUDAStream main = c10::cuda::getCurrentCUDAStream();
        const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
        at::cuda::CUDAEvent before;
        before.record(main);
        before.block(side);
        {
            const c10::cuda::CUDAStreamGuard onSide(side);
            graph_.capture_begin();
            loss_ = step(static_);
            graph_.capture_end();
        }
        at::cuda::CUDAEvent after;
        after.record(side);
        after.block(main);
        captured_ = true;
    }

    at::Tensor replay(const Batch &batch) override
    {
        static_.inputs.copy_(batch.inputs, /*non_blocking=*/true);
        static_.targets.copy_(batch.targets, /*non_blocking=*/true);
        graph_.replay();
        return loss_;
    }

private:
    at::cuda::CUDAGraph graph_;
    Batch static_;
    at::Tensor loss_;
    bool captured_ = false;
};

} // namespace

std::unique_ptr<StepGraph> makeStepGraph()
{
    return std::make_unique<CudaStepGraph>();
}

} // namespace torchdeck::trainer
