#include "run/state_broadcast.h"

#include "checkpoint/train_state.h"
#include "dist/communicator.h"
#include "optim/flat_optimizer.h"
#include "optim/flat_parameters.h"

#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

// Broadcasts through a tensor on the communicator's device when `t` lives elsewhere.
void broadcastTensor(Communicator &comm, const at::Tensor &t)
{
    if (t.device() == comm.device()) {
        comm.broadcast(t, 0);
        return;
    }
    at::Tensor staged = t.to(comm.device());
    comm.broadcast(staged, 0);
    t.copy_(staged);
}

} // namespace

void broadcastTrainState(Communicator &comm, torch::nn::Module &model, FlatParameters &params, FlatOptimizer &optimizer,
                         Progress &progress)
{
    torch::NoGradGuard noGrad;
    std::vector<double> scalars = {
        static_cast<double>(progress.epoch),          static_cast<double>(progress.epochStep),
        static_cast<double>(progress.globalStep),     progress.epochLossSum,
        static_cast<double>(progress.epochLossCount), static_cast<double>(progress.batchSize),
        static_cast<double>(progress.worldSize),      static_cast<double>(optimizer.stepCount())};
    at::Tensor packed = torch::tensor(scalars, torch::kFloat64);
    broadcastTensor(comm, packed);
    const double *v = packed.data_ptr<double>();
    progress.epoch = static_cast<std::int64_t>(v[0]);
    progress.epochStep = static_cast<std::int64_t>(v[1]);
    progress.globalStep = static_cast<std::int64_t>(v[2]);
    progress.epochLossSum = v[3];
    progress.epochLossCount = static_cast<std::int64_t>(v[4]);
    progress.batchSize = static_cast<int>(v[5]);
    progress.worldSize = static_cast<int>(v[6]);
    optimizer.setStepCount(static_cast<std::int64_t>(v[7]));

    for (FlatGroup &group : params.groups())
        broadcastTensor(comm, group.params);
    for (auto &buffer : model.buffers())
        broadcastTensor(comm, buffer);
    for (OptimizerStateBuffer &state : optimizer.state()) {
        for (at::Tensor &t : state.perGroup)
            broadcastTensor(comm, t);
    }
}

} // namespace torchdeck::trainer
