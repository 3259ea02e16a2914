#include "optim/adam_kernel.h"

#include <cmath>

namespace torchdeck::trainer {

// Built with -fno-math-errno (see CMakeLists.txt): sqrt then vectorises.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void adamUpdate(float *__restrict params, const float *__restrict grads, float *__restrict expAvg,
                float *__restrict expAvgSq, std::int64_t n, const AdamScalars &scalars)
{
    const AdamScalars s = scalars; // a local copy: no aliasing with the arrays
    for (std::int64_t i = 0; i < n; ++i) {
        const float g = grads[i] + s.weightDecay * params[i];
        const float m = expAvg[i] * s.beta1 + s.oneMinusBeta1 * g;
        const float v = expAvgSq[i] * s.beta2 + s.oneMinusBeta2 * g * g;
        expAvg[i] = m;
        expAvgSq[i] = v;
        params[i] += s.negStepSize * (m / (std::sqrt(v) * s.invCorrection2Sqrt + s.eps));
    }
}

} // namespace torchdeck::trainer
