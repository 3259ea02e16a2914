#include "optim/flat_optimizer.h"
#include "optim/flat_parameters.h"

#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

// torch.optim.SGD (no dampening, no Nesterov): the momentum buffer starts as the first gradient.
class FlatSgd final : public FlatOptimizer {
public:
    FlatSgd(FlatParameters &params, const SgdConfig &config)
        : FlatOptimizer(params, config.lr, config.weightDecay)
        , momentum_(config.momentum)
    {
        if (momentum_ != 0.0)
            addState("momentum_buffer");
    }

    const char *name() const override { return "sgd"; }

    void step() override
    {
        torch::NoGradGuard noGrad;
        auto &groups = params_.groups();
        for (std::size_t g = 0; g < groups.size(); ++g) {
            at::Tensor &p = groups[g].params;
            at::Tensor update = weightDecay_ != 0.0 ? groups[g].grads.add(p, weightDecay_) : groups[g].grads;
            if (momentum_ != 0.0) {
                at::Tensor &buf = state_[0].perGroup[g];
                if (steps_ == 0)
                    buf.copy_(update);
                else
                    buf.mul_(momentum_).add_(update);
                update = buf;
            }
            p.add_(update, -lr_);
        }
        ++steps_;
    }

private:
    double momentum_;
};

} // namespace

std::unique_ptr<FlatOptimizer> makeSgd(FlatParameters &params, const SgdConfig &config)
{
    return std::make_unique<FlatSgd>(params, config);
}

} // namespace torchdeck::trainer
