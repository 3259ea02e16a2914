#pragma once

#include <cstdint>

namespace torchdeck::trainer {

struct AdamScalars {
    float beta1, beta2, oneMinusBeta1, oneMinusBeta2, eps, weightDecay, negStepSize, invCorrection2Sqrt;
};

// One Adam step over n floats in a single pass (torch.optim.Adam's arithmetic, amsgrad off). Compiled
// for AVX2/AVX-512 too, picked at load time; no torch includes here.
void adamUpdate(float *params, const float *grads, float *expAvg, float *expAvgSq, std::int64_t n,
                const AdamScalars &s);

} // namespace torchdeck::trainer
