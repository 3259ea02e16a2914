// Built only against a CUDA LibTorch, with -DTORCHDECK_CUDA_GRAPHS=ON.
#include "run/batch.h"
#include "run/step_graph.h"

#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <stdexcept>
#include <string>
#include <thread>

namespace torchdeck::trainer {

namespace {

class CudaStepGraph final : public StepGraph {
public:
    bool captured() const override { return captured_; }

    // On the current stream: the TrainingStream's, never the default stream (a capture there is refused).
    void capture(const Batch &first, const std::function<at::Tensor(const Batch &)> &step) override
    {
        static_.inputs = first.inputs.clone(at::MemoryFormat::Preserve);
        static_.targets = first.targets.clone(at::MemoryFormat::Preserve);
        graph_.capture_begin();
        at::Tensor loss = step(static_);
        graph_.capture_end();
        loss_ = loss.detach(); // not the recorded autograd graph: only the value each replay writes
        captured_ = true;
    }

    at::Tensor replay(const Batch &batch) override
    {
        static_.inputs.copy_(batch.inputs, /*non_blocking=*/true);
        static_.targets.copy_(batch.targets, /*non_blocking=*/true);
        graph_.replay();
        replayed_.record(c10::cuda::getCurrentCUDAStream());
        return loss_;
    }

    void awaitReplays(std::chrono::seconds timeout) override
    {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (!replayed_.query()) {
            if (std::chrono::steady_clock::now() > deadline)
                throw std::runtime_error("a replayed training step did not finish within " +
                                         std::to_string(timeout.count()) +
                                         " s (--timeout): another rank stopped, or the device hangs");
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }

private:
    at::cuda::CUDAGraph graph_;
    at::cuda::CUDAEvent replayed_;
    Batch static_;
    at::Tensor loss_;
    bool captured_ = false;
};

class CudaTrainingStream final : public TrainingStream {
public:
    explicit CudaTrainingStream(const c10::Device &device)
        : previous_(c10::cuda::getCurrentCUDAStream(device.index()))
        , stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index()))
        , guard_(stream_)
    {
        at::cuda::CUDAEvent before;
        before.record(previous_);
        before.block(stream_);
    }

    ~CudaTrainingStream() override
    {
        at::cuda::CUDAEvent after;
        after.record(stream_);
        after.block(previous_);
    }
    CudaTrainingStream(const CudaTrainingStream &) = delete;
    CudaTrainingStream &operator=(const CudaTrainingStream &) = delete;

private:
    c10::cuda::CUDAStream previous_;
    c10::cuda::CUDAStream stream_;
    c10::cuda::CUDAStreamGuard guard_; // the device and its current stream, put back at the end
};

} // namespace

std::unique_ptr<StepGraph> makeStepGraph()
{
    return std::make_unique<CudaStepGraph>();
}

std::unique_ptr<TrainingStream> enterTrainingStream(const c10::Device &device)
{
    return std::make_unique<CudaTrainingStream>(device);
}

} // namespace torchdeck::trainer
