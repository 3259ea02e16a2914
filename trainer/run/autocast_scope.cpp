#include "run/autocast_scope.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace torchdeck::trainer {

// LibTorch 2.4 made autocast per device type (set_autocast_enabled(type, on)); 1.13 has one switch for
// CUDA (set_enabled) and one for CPU (set_cpu_enabled).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define TORCHDECK_AUTOCAST_PER_DEVICE 1
#endif

AutocastScope::AutocastScope(bool enabled, c10::DeviceType device)
    : enabled_(enabled)
    , device_(device)
{
    if (!enabled_)
        return;
#ifdef TORCHDECK_AUTOCAST_PER_DEVICE
    previous_ = at::autocast::is_autocast_enabled(device_);
    at::autocast::set_autocast_dtype(device_, at::kBFloat16);
    at::autocast::set_autocast_enabled(device_, true);
#else
    if (device_ == c10::kCUDA) {
        previous_ = at::autocast::is_enabled();
        at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
        at::autocast::set_enabled(true);
    } else {
        previous_ = at::autocast::is_cpu_enabled();
        at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
        at::autocast::set_cpu_enabled(true);
    }
#endif
}

AutocastScope::~AutocastScope()
{
    if (!enabled_)
        return;
#ifdef TORCHDECK_AUTOCAST_PER_DEVICE
    at::autocast::set_autocast_enabled(device_, previous_);
#else
    if (device_ == c10::kCUDA)
        at::autocast::set_enabled(previous_);
    else
        at::autocast::set_cpu_enabled(previous_);
#endif
    at::autocast::clear_cache();
}

} // namespace torchdeck::trainer
