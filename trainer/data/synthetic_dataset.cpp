#include "data/dataset.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

// Fixed, independent of --seed: synthetic data is the same in every run.
constexpr std::uint64_t kSyntheticDataSeed = 0x5eed'da7aULL;
constexpr std::int64_t kClasses = 10;
constexpr std::int64_t kValFraction = 5; // val split: a fifth of the training size

Dataset generate(std::int64_t n, const std::vector<std::int64_t> &shape, const at::Tensor &projection,
                 at::Generator &gen)
{
    std::vector<std::int64_t> full = {n};
    full.insert(full.end(), shape.begin(), shape.end());
    Dataset d;
    d.inputs = torch::rand(full, gen);
    // Labels are a fixed linear function of the inputs, so the task is learnable.
    d.targets = d.inputs.reshape({n, -1}).sub(0.5).matmul(projection).argmax(1);
    d.numClasses = kClasses;
    return d;
}

} // namespace

DatasetSplits makeSyntheticDatasets(std::int64_t trainSize, const std::vector<std::int64_t> &sampleShape,
                                    std::int64_t limit)
{
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(kSyntheticDataSeed);
    std::int64_t features = 1;
    for (const std::int64_t d : sampleShape)
        features *= d;
    const at::Tensor projection = torch::randn({features, kClasses}, gen);
    DatasetSplits s;
    s.train = generate(trainSize, sampleShape, projection, gen);
    s.val = generate(std::max<std::int64_t>(1, trainSize / kValFraction), sampleShape, projection, gen);
    if (limit > 0) {
        for (Dataset *d : {&s.train, &s.val}) {
            const std::int64_t n = std::min(limit, d->size());
            d->inputs = d->inputs.narrow(0, 0, n).contiguous();
            d->targets = d->targets.narrow(0, 0, n).contiguous();
        }
    }
    return s;
}

} // namespace torchdeck::trainer
