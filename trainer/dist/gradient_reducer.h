#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace at {
class Tensor;
}

namespace torch::autograd {
struct Node;
}

namespace torchdeck::trainer {

class Communicator;
class FlatParameters;
class PendingCollective;

// Data-parallel gradient averaging overlapped with backward, the way PyTorch's DDP Reducer works:
// gradients are cut into buckets (contiguous ranges of the flat gradient buffers, ~25 MB); a hook on
// each parameter's gradient accumulator counts the gradients that are ready, and a bucket's allreduce is
// launched as soon as it is full, while backward goes on. Buckets are launched strictly in bucket order,
// the same on every rank. Each bucket is scaled by 1/world before the sum, so the result is the average.
class GradientReducer {
public:
    GradientReducer(FlatParameters &params, Communicator &comm, std::int64_t bucketBytes);
    ~GradientReducer();
    GradientReducer(const GradientReducer &) = delete;
    GradientReducer &operator=(const GradientReducer &) = delete;

    // Before each backward (after the gradients were zeroed). `control` rides along with the last bucket
    // of the first group; after finish(), control() is its average over the ranks (the stop flag).
    void prepare(float control = 0.0f);
    // The same, with `control` read from a one-element device tensor: what a CUDA graph records, so that each
    // replay carries the value the tensor holds then.
    void prepare(const at::Tensor &control);
    // After backward: launches what is left (buckets of unused parameters) and waits for every bucket.
    void finish();

    // The ranks' average of the `control` values given to prepare(); valid after finish(). Reading it
    // synchronises with the device.
    float control() const;

    std::size_t bucketCount() const { return buckets_.size(); }
    // How many buckets were launched from inside backward in the last step (the overlap).
    std::size_t launchedDuringBackward() const { return launchedInBackward_; }
    // Seconds spent inside the collectives' launches from backward in the last step: a communicator whose
    // launch blocks until every rank arrives (shm) waits there, and that wait is not this rank's compute.
    double secondsInBackwardLaunches() const { return launchSeconds_; }
    // Called before each collective launched from backward (on an autograd thread, under the reducer's
    // lock): the rank's heartbeat says from then on that it waits for the others.
    void setLaunchHook(std::function<void()> hook) { launchHook_ = std::move(hook); }

private:
    struct Bucket {
        std::size_t group = 0;
        std::int64_t offset = 0;
        std::int64_t length = 0;
        std::size_t slotCount = 0;
        std::size_t pending = 0;
        bool launched = false;
    };

    at::Tensor controlSlot() const; // the element after the first group's gradients
    void resetBuckets();
    void markReady(std::size_t slot);
    void launchReadyInOrder(bool inBackward);

    FlatParameters &params_;
    Communicator &comm_;
    std::vector<Bucket> buckets_;
    std::vector<std::size_t> bucketOfSlot_;
    std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
    std::vector<std::unique_ptr<PendingCollective>> inFlight_;
    std::size_t nextToLaunch_ = 0;
    std::size_t launchedInBackward_ = 0;
    double launchSeconds_ = 0;
    std::function<void()> launchHook_;
    std::mutex mutex_; // hooks of different devices run on different autograd threads
};

} // namespace torchdeck::trainer
