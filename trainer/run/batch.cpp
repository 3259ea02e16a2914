#include "run/batch.h"

#include "data/dataset.h"

#include <cstring>
#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

// Rows `indices` of `source`: one memcpy per row for CPU tensors (index_select's generic kernel is ~10x
// slower for this shape), index_select on other devices.
at::Tensor gatherRows(const at::Tensor &source, const std::int64_t *indices, std::int64_t count)
{
    if (!source.is_cpu() || !source.is_contiguous()) {
        at::Tensor index = torch::from_blob(const_cast<std::int64_t *>(indices), {count}, torch::kInt64);
        // To a GPU through pinned memory, asynchronously: a copy from pageable memory would wait for
        // the GPU to finish all queued work on every step (the host could not run ahead).
        if (source.is_cuda())
            index = index.pin_memory().to(source.device(), /*non_blocking=*/true);
        else
            index = index.to(source.device());
        return source.index_select(0, index);
    }
    std::vector<std::int64_t> sizes = source.sizes().vec();
    sizes[0] = count;
    at::Tensor out = torch::empty(sizes, source.options());
    const auto rowBytes = static_cast<std::size_t>(source.stride(0) * source.element_size());
    const auto *from = static_cast<const char *>(source.data_ptr());
    auto *to = static_cast<char *>(out.data_ptr());
    const std::int64_t rows = source.size(0);
    for (std::int64_t i = 0; i < count; ++i) {
        TORCH_CHECK(indices[i] >= 0 && indices[i] < rows, "sample index ", indices[i], " out of range");
        std::memcpy(to + static_cast<std::size_t>(i) * rowBytes, from + static_cast<std::size_t>(indices[i]) * rowBytes,
                    rowBytes);
    }
    return out;
}

} // namespace

Batch gatherBatch(const Dataset &data, const std::int64_t *indices, std::int64_t count, const c10::Device &device,
                  bool channelsLast)
{
    Batch b;
    b.inputs = gatherRows(data.inputs, indices, count);
    b.targets = gatherRows(data.targets, indices, count);
    if (b.inputs.device() != device) {
        b.inputs = b.inputs.pin_memory().to(device, /*non_blocking=*/true);
        b.targets = b.targets.pin_memory().to(device, /*non_blocking=*/true);
    }
    if (channelsLast && b.inputs.dim() == 4)
        b.inputs = b.inputs.contiguous(at::MemoryFormat::ChannelsLast);
    return b;
}

at::Tensor batchLoss(LossKind kind, const at::Tensor &output, const Batch &batch)
{
    const at::Tensor out = output.scalar_type() == torch::kFloat32 ? output : output.to(torch::kFloat32);
    if (kind == LossKind::Reconstruction)
        return torch::mse_loss(out, batch.inputs.flatten(1));
    return torch::cross_entropy_loss(out, batch.targets);
}

} // namespace torchdeck::trainer
