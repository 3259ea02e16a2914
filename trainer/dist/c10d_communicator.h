#pragma once

// Private to the backend files: the Communicator over any c10d process group (ProcessGroupGloo,
// ProcessGroupNCCL). Their collective signatures are the same in LibTorch 1.13 and 2.x.

#include "dist/communicator.h"

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

namespace torchdeck::trainer {

class C10dPending final : public PendingCollective {
public:
    C10dPending(c10::intrusive_ptr<c10d::Work> work, std::vector<at::Tensor> tensors)
        : work_(std::move(work))
        , tensors_(std::move(tensors))
    {
    }
    void wait() override { work_->wait(); }

private:
    c10::intrusive_ptr<c10d::Work> work_;
    std::vector<at::Tensor> tensors_; // kept alive until the collective is done
};

template <typename ProcessGroup> class C10dCommunicator final : public Communicator {
public:
    C10dCommunicator(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<ProcessGroup> group,
                     std::string backendName, c10::Device device)
        : store_(std::move(store))
        , group_(std::move(group))
        , backend_(std::move(backendName))
        , device_(device)
    {
    }

    int rank() const override { return group_->getRank(); }
    int size() const override { return group_->getSize(); }
    std::string backend() const override { return backend_; }
    c10::Device device() const override { return device_; }

    std::unique_ptr<PendingCollective> allreduceSum(const at::Tensor &tensor) override
    {
        std::vector<at::Tensor> tensors = {tensor};
        c10d::AllreduceOptions options;
        options.reduceOp = c10d::ReduceOp::SUM;
        auto work = group_->allreduce(tensors, options);
        return std::make_unique<C10dPending>(std::move(work), std::move(tensors));
    }

    void broadcast(const at::Tensor &tensor, int root) override
    {
        std::vector<at::Tensor> tensors = {tensor};
        c10d::BroadcastOptions options;
        options.rootRank = root;
        group_->broadcast(tensors, options)->wait();
    }

    void barrier() override { group_->barrier()->wait(); }

private:
    c10::intrusive_ptr<c10d::Store> store_;
    c10::intrusive_ptr<ProcessGroup> group_;
    std::string backend_;
    c10::Device device_;
};

} // namespace torchdeck::trainer
