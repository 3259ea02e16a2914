#include "optim/flat_parameters.h"

#include <torch/nn/module.h>
#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

// A view of `flat` at `offset` with the sizes and strides of `like` (keeps channels_last layouts).
at::Tensor viewLike(const at::Tensor &flat, std::int64_t offset, const at::Tensor &like)
{
    at::Tensor range = flat.narrow(0, offset, like.numel());
    if (like.is_contiguous())
        return range.view(like.sizes());
    TORCH_CHECK(like.is_non_overlapping_and_dense(), "cannot flatten a parameter with overlapping memory");
    return range.as_strided(like.sizes(), like.strides());
}

} // namespace

FlatParameters::FlatParameters(torch::nn::Module &module)
{
    for (const auto &item : module.named_parameters(/*recurse=*/true)) {
        if (!item.value().requires_grad())
            continue;
        ParamSlot slot;
        slot.name = item.key();
        slot.param = item.value();
        slot.numel = slot.param.numel();
        slots_.push_back(std::move(slot));
    }
    // Group by device and dtype, each group in reverse registration order.
    for (std::size_t i = slots_.size(); i-- > 0;) {
        ParamSlot &slot = slots_[i];
        std::size_t g = 0;
        while (g < groups_.size() && !(groups_[g].params.device() == slot.param.device() &&
                                       groups_[g].params.scalar_type() == slot.param.scalar_type()))
            ++g;
        if (g == groups_.size()) {
            groups_.emplace_back();
            groups_.back().params = torch::empty({0}, slot.param.options()); // placeholder for the key
        }
        slot.group = g;
        groups_[g].slots.push_back(i);
    }
    torch::NoGradGuard noGrad;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        FlatGroup &group = groups_[g];
        std::int64_t total = 0;
        for (const std::size_t i : group.slots) {
            slots_[i].offset = total;
            total += slots_[i].numel;
        }
        const auto options = group.params.options();
        group.params = torch::empty({total}, options);
        group.gradsWithControl = torch::zeros({total + 1}, options);
        group.grads = group.gradsWithControl.narrow(0, 0, total);
        for (const std::size_t i : group.slots) {
            ParamSlot &slot = slots_[i];
            at::Tensor view = viewLike(group.params, slot.offset, slot.param);
            view.copy_(slot.param);
            slot.param.set_data(view);
            slot.param.mutable_grad() = viewLike(group.grads, slot.offset, slot.param);
        }
    }
}

std::int64_t FlatParameters::numel() const
{
    std::int64_t n = 0;
    for (const FlatGroup &g : groups_)
        n += g.params.numel();
    return n;
}

void FlatParameters::zeroGrads()
{
    for (FlatGroup &g : groups_)
        g.gradsWithControl.zero_();
}

} // namespace torchdeck::trainer
