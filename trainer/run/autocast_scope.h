#pragma once

#include <c10/core/DeviceType.h>

namespace torchdeck::trainer {

// bf16 autocast for the forward pass on `device`'s type while alive (nothing when disabled).
class AutocastScope {
public:
    AutocastScope(bool enabled, c10::DeviceType device);
    ~AutocastScope();
    AutocastScope(const AutocastScope &) = delete;
    AutocastScope &operator=(const AutocastScope &) = delete;

private:
    bool enabled_;
    c10::DeviceType device_;
    bool previous_ = false;
};

} // namespace torchdeck::trainer
