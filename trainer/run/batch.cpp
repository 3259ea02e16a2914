#include "run/batch.h"

#include "data/dataset.h"

#include <torch/torch.h>

namespace torchdeck::trainer {

Batch gatherBatch(const Dataset &data, const std::int64_t *indices, std::int64_t count, const c10::Device &device,
                  bool channelsLast)
{
    // from_blob does not copy: `indices` must outlive the index_select below, which it does.
    const at::Tensor index = torch::from_blob(const_cast<std::int64_t *>(indices), {count}, torch::kInt64);
    Batch b;
    b.inputs = data.inputs.index_select(0, index);
    b.targets = data.targets.index_select(0, index);
    if (!device.is_cpu()) {
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
