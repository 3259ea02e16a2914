#include "dist/gradient_reducer.h"

#include "dist/communicator.h"
#include "optim/flat_parameters.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

namespace torchdeck::trainer {

GradientReducer::GradientReducer(FlatParameters &params, Communicator &comm, std::int64_t bucketBytes)
    : params_(params)
    , comm_(comm)
{
    const auto &slots = params_.slots();
    bucketOfSlot_.assign(slots.size(), 0);
    // Buckets: consecutive slots of one group (layout order = reverse registration order) up to the cap.
    struct Pending {
        std::size_t firstSlotRank; // position in reverse registration order, for a global order
        Bucket bucket;
        std::vector<std::size_t> members;
    };
    std::vector<Pending> cut;
    for (std::size_t g = 0; g < params_.groups().size(); ++g) {
        const FlatGroup &group = params_.groups()[g];
        const std::int64_t elementBytes = static_cast<std::int64_t>(group.grads.element_size());
        Pending current;
        for (const std::size_t slot : group.slots) {
            if (current.members.empty()) {
                current.bucket = Bucket{};
                current.bucket.group = g;
                current.bucket.offset = slots[slot].offset;
                current.firstSlotRank = slots.size() - 1 - slot;
            }
            current.members.push_back(slot);
            current.bucket.length += slots[slot].numel;
            if (current.bucket.length * elementBytes >= bucketBytes) {
                cut.push_back(current);
                current.members.clear();
            }
        }
        if (!current.members.empty())
            cut.push_back(current);
        cut.back().bucket.length += 1; // the group's last bucket also carries its control element
    }
    // The same order on every rank: by the first parameter (in reverse registration order) of a bucket.
    std::sort(cut.begin(), cut.end(),
              [](const Pending &a, const Pending &b) { return a.firstSlotRank < b.firstSlotRank; });
    for (Pending &p : cut) {
        p.bucket.slotCount = p.members.size();
        for (const std::size_t slot : p.members)
            bucketOfSlot_[slot] = buckets_.size();
        buckets_.push_back(p.bucket);
    }

    // A post hook on each parameter's gradient accumulator: it runs once the gradient of this backward
    // has been accumulated into the parameter's flat gradient view.
    for (std::size_t slot = 0; slot < slots.size(); ++slot) {
        auto accumulator = torch::autograd::impl::grad_accumulator(slots[slot].param);
        if (!accumulator)
            throw std::runtime_error("parameter " + slots[slot].name + " has no gradient accumulator");
        accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
            [this, slot](const torch::autograd::variable_list &outputs, const torch::autograd::variable_list &) {
                markReady(slot);
                return outputs;
            }));
        accumulators_.push_back(std::move(accumulator));
    }
    prepare();
}

GradientReducer::~GradientReducer()
{
    for (auto &accumulator : accumulators_)
        accumulator->post_hooks().clear();
}

at::Tensor GradientReducer::controlSlot() const
{
    const FlatGroup &first = params_.groups().front();
    return first.gradsWithControl.narrow(0, first.grads.numel(), 1);
}

void GradientReducer::prepare(float control)
{
    controlSlot().fill_(control);
    resetBuckets();
}

void GradientReducer::prepare(const at::Tensor &control)
{
    controlSlot().copy_(control.reshape({1}));
    resetBuckets();
}

void GradientReducer::resetBuckets()
{
    std::lock_guard<std::mutex> lock(mutex_);
    for (Bucket &b : buckets_) {
        b.pending = b.slotCount;
        b.launched = false;
    }
    nextToLaunch_ = 0;
    launchedInBackward_ = 0;
    launchSeconds_ = 0;
    inFlight_.clear();
}

void GradientReducer::markReady(std::size_t slot)
{
    std::lock_guard<std::mutex> lock(mutex_);
    Bucket &b = buckets_[bucketOfSlot_[slot]];
    if (b.pending > 0)
        --b.pending;
    launchReadyInOrder(true);
}

void GradientReducer::launchReadyInOrder(bool inBackward)
{
    const double scale = 1.0 / static_cast<double>(comm_.size());
    while (nextToLaunch_ < buckets_.size() && (buckets_[nextToLaunch_].pending == 0 || !inBackward)) {
        Bucket &b = buckets_[nextToLaunch_++];
        at::Tensor range = params_.groups()[b.group].gradsWithControl.narrow(0, b.offset, b.length);
        range.mul_(scale);
        if (inBackward && launchHook_)
            launchHook_();
        const auto start = std::chrono::steady_clock::now();
        inFlight_.push_back(comm_.allreduceSum(range));
        b.launched = true;
        if (inBackward) {
            ++launchedInBackward_;
            launchSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
    }
}

float GradientReducer::control() const
{
    return controlSlot().item<float>();
}

void GradientReducer::finish()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        launchReadyInOrder(false);
    }
    for (auto &pending : inFlight_)
        pending->wait();
    inFlight_.clear();
}

} // namespace torchdeck::trainer
