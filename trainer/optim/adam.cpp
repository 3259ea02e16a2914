#include "optim/adam_kernel.h"
#include "optim/flat_optimizer.h"
#include "optim/flat_parameters.h"

#include <ATen/Parallel.h>
#include <cmath>
#include <torch/torch.h>
#include <torch/version.h>

// at::_fused_adam_ (the kernel of torch.optim.Adam(fused=True)) exists from LibTorch 2.0 on.
#if TORCH_VERSION_MAJOR >= 2
#define TORCHDECK_HAVE_FUSED_ADAM 1
#endif

namespace torchdeck::trainer {

namespace {

constexpr std::int64_t kParallelGrain = 1 << 14;

// torch.optim.Adam (amsgrad off), single pass over the flat buffers.
class FlatAdam final : public FlatOptimizer {
public:
    FlatAdam(FlatParameters &params, const AdamConfig &config)
        : FlatOptimizer(params, config.lr, config.weightDecay)
        , config_(config)
    {
        addState("exp_avg");
        addState("exp_avg_sq");
    }

    const char *name() const override { return "adam"; }

    void step() override
    {
        torch::NoGradGuard noGrad;
        ++steps_;
        const double biasCorrection1 = 1.0 - std::pow(config_.beta1, static_cast<double>(steps_));
        const double biasCorrection2 = 1.0 - std::pow(config_.beta2, static_cast<double>(steps_));
        const double stepSize = lr_ / biasCorrection1;
        const double correction2Sqrt = std::sqrt(biasCorrection2);
        auto &groups = params_.groups();
        for (std::size_t g = 0; g < groups.size(); ++g) {
            at::Tensor &p = groups[g].params;
            at::Tensor &grad = groups[g].grads;
            at::Tensor &m = state_[0].perGroup[g];
            at::Tensor &v = state_[1].perGroup[g];
            if (p.device().is_cpu() && p.scalar_type() == at::kFloat)
                fusedCpu(p, grad, m, v, stepSize, correction2Sqrt);
#ifdef TORCHDECK_HAVE_FUSED_ADAM
            else if (p.is_cuda())
                fusedCuda(g, p, grad, m, v);
#endif
            else
                tensorOps(p, grad, m, v, stepSize, correction2Sqrt);
        }
    }

private:
    void tensorOps(at::Tensor &p, const at::Tensor &gradIn, at::Tensor &m, at::Tensor &v, double stepSize,
                   double correction2Sqrt) const
    {
        const at::Tensor grad = weightDecay_ != 0.0 ? gradIn.add(p, weightDecay_) : gradIn;
        m.mul_(config_.beta1).add_(grad, 1.0 - config_.beta1);
        v.mul_(config_.beta2).addcmul_(grad, grad, 1.0 - config_.beta2);
        const at::Tensor denom = (v.sqrt() / correction2Sqrt).add_(config_.eps);
        p.addcdiv_(m, denom, -stepSize);
    }

#ifdef TORCHDECK_HAVE_FUSED_ADAM
    // LibTorch 2.x on CUDA: torch.optim.Adam(fused=True)'s kernel, one launch over the whole flat buffer
    // (instead of ~8 whole-buffer passes). The step count lives in a device tensor, as in PyTorch.
    void fusedCuda(std::size_t group, at::Tensor &p, at::Tensor &grad, at::Tensor &m, at::Tensor &v)
    {
        if (deviceSteps_.size() <= group)
            deviceSteps_.resize(group + 1);
        at::Tensor &stepTensor = deviceSteps_[group];
        if (!stepTensor.defined())
            stepTensor = torch::zeros({}, p.options().dtype(at::kFloat));
        if (capturing_)
            stepTensor.add_(1); // each replay counts its step; the uncaptured steps in between set it anew
        else
            stepTensor.fill_(static_cast<double>(steps_));
        at::_fused_adam_({p}, {grad}, {m}, {v}, {}, {stepTensor}, lr_, config_.beta1, config_.beta2, weightDecay_,
                         config_.eps, /*amsgrad=*/false, /*maximize=*/false);
    }
#endif

    void fusedCpu(at::Tensor &p, const at::Tensor &grad, at::Tensor &m, at::Tensor &v, double stepSize,
                  double correction2Sqrt) const
    {
        float *pp = p.data_ptr<float>();
        const float *gp = grad.data_ptr<float>();
        float *mp = m.data_ptr<float>();
        float *vp = v.data_ptr<float>();
        AdamScalars s{};
        s.beta1 = static_cast<float>(config_.beta1);
        s.beta2 = static_cast<float>(config_.beta2);
        s.oneMinusBeta1 = static_cast<float>(1.0 - config_.beta1);
        s.oneMinusBeta2 = static_cast<float>(1.0 - config_.beta2);
        s.eps = static_cast<float>(config_.eps);
        s.weightDecay = static_cast<float>(weightDecay_);
        s.negStepSize = static_cast<float>(-stepSize);
        s.invCorrection2Sqrt = static_cast<float>(1.0 / correction2Sqrt);
        at::parallel_for(0, p.numel(), kParallelGrain, [&](std::int64_t begin, std::int64_t end) {
            adamUpdate(pp + begin, gp + begin, mp + begin, vp + begin, end - begin, s);
        });
    }

    AdamConfig config_;
    std::vector<at::Tensor> deviceSteps_; // per group, fused CUDA kernel only
};

} // namespace

std::unique_ptr<FlatOptimizer> makeAdam(FlatParameters &params, const AdamConfig &config)
{
    return std::make_unique<FlatAdam>(params, config);
}

} // namespace torchdeck::trainer
