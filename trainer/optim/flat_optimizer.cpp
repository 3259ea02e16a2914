#include "optim/flat_optimizer.h"

#include "optim/flat_parameters.h"

#include <torch/torch.h>

namespace torchdeck::trainer {

FlatOptimizer::FlatOptimizer(FlatParameters &params, double lr, double weightDecay)
    : params_(params)
    , lr_(lr)
    , weightDecay_(weightDecay)
{
}

OptimizerStateBuffer &FlatOptimizer::addState(const std::string &name)
{
    OptimizerStateBuffer buffer;
    buffer.name = name;
    for (const FlatGroup &g : params_.groups())
        buffer.perGroup.push_back(torch::zeros_like(g.params));
    state_.push_back(std::move(buffer));
    return state_.back();
}

} // namespace torchdeck::trainer
