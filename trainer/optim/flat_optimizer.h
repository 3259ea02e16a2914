#pragma once

#include <ATen/core/Tensor.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torchdeck::trainer {

class FlatParameters;

// One kind of per-parameter optimizer state ("exp_avg", "momentum_buffer"...), one flat tensor per
// parameter group, laid out like the group's parameters.
struct OptimizerStateBuffer {
    std::string name;
    std::vector<at::Tensor> perGroup;
};

// An optimizer that updates the flat parameter buffers of FlatParameters in a few whole-buffer
// operations instead of a handful of small operations per parameter. Same arithmetic as torch.optim.
class FlatOptimizer {
public:
    FlatOptimizer(FlatParameters &params, double lr, double weightDecay);
    virtual ~FlatOptimizer() = default;
    FlatOptimizer(const FlatOptimizer &) = delete;
    FlatOptimizer &operator=(const FlatOptimizer &) = delete;

    virtual void step() = 0;
    virtual const char *name() const = 0;

    double lr() const { return lr_; }
    std::int64_t stepCount() const { return steps_; }
    void setStepCount(std::int64_t steps) { steps_ = steps; }
    std::vector<OptimizerStateBuffer> &state() { return state_; }
    // While a CUDA graph records step(): what changes from step to step must change on the device, as the
    // recorded kernels replay with the values they were recorded with.
    void setCapturing(bool capturing) { capturing_ = capturing; }

protected:
    OptimizerStateBuffer &addState(const std::string &name);

    FlatParameters &params_;
    double lr_;
    double weightDecay_;
    std::int64_t steps_ = 0;
    bool capturing_ = false;
    std::vector<OptimizerStateBuffer> state_;
};

struct AdamConfig {
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weightDecay = 0.0;
};

struct SgdConfig {
    double lr = 1e-3;
    double momentum = 0.0;
    double weightDecay = 0.0;
};

std::unique_ptr<FlatOptimizer> makeAdam(FlatParameters &params, const AdamConfig &config);
std::unique_ptr<FlatOptimizer> makeSgd(FlatParameters &params, const SgdConfig &config);

} // namespace torchdeck::trainer
