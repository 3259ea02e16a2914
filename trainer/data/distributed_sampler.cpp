#include "data/distributed_sampler.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace torchdeck::trainer {

DistributedSampler::DistributedSampler(std::int64_t datasetSize, int worldSize, int rank, bool shuffle,
                                       std::uint64_t seed)
    : datasetSize_(datasetSize)
    , worldSize_(worldSize)
    , rank_(rank)
    , shuffle_(shuffle)
    , seed_(seed)
    , shardSize_((datasetSize + worldSize - 1) / worldSize)
{
}

std::vector<std::int64_t> DistributedSampler::epochIndices(std::int64_t epoch) const
{
    std::vector<std::int64_t> all(static_cast<std::size_t>(datasetSize_));
    if (shuffle_) {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed_ + static_cast<std::uint64_t>(epoch));
        const at::Tensor perm = torch::randperm(datasetSize_, gen, torch::kInt64);
        const std::int64_t *p = perm.data_ptr<std::int64_t>();
        all.assign(p, p + datasetSize_);
    } else {
        for (std::int64_t i = 0; i < datasetSize_; ++i)
            all[static_cast<std::size_t>(i)] = i;
    }
    const std::int64_t total = shardSize_ * worldSize_;
    std::vector<std::int64_t> shard;
    shard.reserve(static_cast<std::size_t>(shardSize_));
    for (std::int64_t i = rank_; i < total; i += worldSize_)
        shard.push_back(all[static_cast<std::size_t>(i % datasetSize_)]);
    return shard;
}

std::vector<std::int64_t> strideShard(std::int64_t datasetSize, int worldSize, int rank)
{
    std::vector<std::int64_t> shard;
    for (std::int64_t i = rank; i < datasetSize; i += worldSize)
        shard.push_back(i);
    return shard;
}

} // namespace torchdeck::trainer
