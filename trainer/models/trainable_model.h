#pragma once

#include <torch/nn/module.h>
#include <torch/types.h>
#include <vector>

namespace torchdeck::trainer {

enum class LossKind {
    Reconstruction, // MSE between the output and the flattened input (the auto-encoder)
    Classification, // cross entropy against the class labels
};

// What the training loop needs of a model beyond torch::nn::Module.
struct TrainableModel : torch::nn::Module {
    // The output is on the device of `input`.
    virtual torch::Tensor forward(const torch::Tensor &input) = 0;
    virtual LossKind lossKind() const = 0;
    // Places the model: one device, or two for a model split over devices (model parallel).
    virtual void place(const std::vector<torch::Device> &devices) { to(devices.front()); }
};

} // namespace torchdeck::trainer
