#include "run/evaluate.h"

#include "data/dataset.h"
#include "run/autocast_scope.h"
#include "run/batch.h"
#include "run/devices.h"

#include <torch/torch.h>

namespace torchdeck::trainer {

EvalSums evaluate(TrainableModel &model, const Dataset &data, const std::vector<std::int64_t> &indices,
                  std::int64_t batchSize, const DevicePlan &devices, bool channelsLast, bool bf16)
{
    torch::NoGradGuard noGrad;
    model.eval();
    at::Tensor lossSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(devices.dataDevice));
    at::Tensor correct = torch::zeros_like(lossSum);
    const auto total = static_cast<std::int64_t>(indices.size());
    for (std::int64_t start = 0; start < total; start += batchSize) {
        const std::int64_t count = std::min(batchSize, total - start);
        const Batch batch = gatherBatch(data, indices.data() + start, count, devices.dataDevice, channelsLast);
        at::Tensor output;
        {
            AutocastScope autocast(bf16, devices.dataDevice.type());
            output = model.forward(batch.inputs);
        }
        lossSum += batchLoss(model.lossKind(), output, batch).to(torch::kFloat64) * static_cast<double>(count);
        if (model.lossKind() == LossKind::Classification)
            correct += output.argmax(1).eq(batch.targets).sum().to(torch::kFloat64);
    }
    model.train();
    EvalSums sums;
    sums.lossSum = lossSum.item<double>();
    sums.correct = correct.item<double>();
    sums.count = static_cast<double>(total);
    return sums;
}

} // namespace torchdeck::trainer
