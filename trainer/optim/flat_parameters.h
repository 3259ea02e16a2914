#pragma once

#include <ATen/core/Tensor.h>
#include <cstdint>
#include <string>
#include <vector>

namespace torch::nn {
class Module;
}

namespace torchdeck::trainer {

// One parameter of the model and where it lives inside its group's flat buffers.
struct ParamSlot {
    std::string name;
    at::Tensor param;
    std::size_t group = 0;
    std::int64_t offset = 0; // in elements, inside the group's flat buffers
    std::int64_t numel = 0;
};

// All parameters of one device and dtype, stored back to back in one buffer, and their gradients in
// another. Parameters are laid out in REVERSE registration order: gradients become ready roughly in that
// order during backward, so gradient buckets are contiguous ranges filled front to back.
struct FlatGroup {
    at::Tensor params; // 1-D
    at::Tensor grads;  // 1-D, same layout
    // `grads` plus one control element after the last gradient: a value that travels with the group's
    // last gradient bucket (the agreed stop flag), so that it costs no collective of its own.
    at::Tensor gradsWithControl;
    std::vector<std::size_t> slots; // indices into slots(), in layout order
};

// Re-seats every parameter of `module` as a view into flat per-(device, dtype) buffers and gives each a
// gradient that is a view into a flat gradient buffer. Autograd then accumulates straight into the flat
// gradients, the reducer allreduces ranges of them, and the optimizer updates whole buffers at once.
// Build it after the module is on its final device(s) and memory format.
class FlatParameters {
public:
    explicit FlatParameters(torch::nn::Module &module);

    const std::vector<ParamSlot> &slots() const { return slots_; } // registration order
    std::vector<FlatGroup> &groups() { return groups_; }
    const std::vector<FlatGroup> &groups() const { return groups_; }
    std::int64_t numel() const;

    void zeroGrads();

private:
    std::vector<ParamSlot> slots_;
    std::vector<FlatGroup> groups_;
};

} // namespace torchdeck::trainer
