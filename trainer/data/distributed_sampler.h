#pragma once

#include <cstdint>
#include <vector>

namespace torchdeck::trainer {

// torch.utils.data.DistributedSampler(drop_last=False) in C++: per epoch a permutation seeded with
// seed + epoch (torch.randperm, so the order equals PyTorch's), padded by wrapping around to a multiple
// of the world size, then every world-size-th index from `rank`. All shards have the same size.
class DistributedSampler {
public:
    DistributedSampler(std::int64_t datasetSize, int worldSize, int rank, bool shuffle, std::uint64_t seed);

    std::vector<std::int64_t> epochIndices(std::int64_t epoch) const;
    std::int64_t shardSize() const { return shardSize_; }

private:
    std::int64_t datasetSize_;
    int worldSize_;
    int rank_;
    bool shuffle_;
    std::uint64_t seed_;
    std::int64_t shardSize_;
};

// Validation shards: every world-size-th index from `rank`, no padding (no sample counted twice).
std::vector<std::int64_t> strideShard(std::int64_t datasetSize, int worldSize, int rank);

} // namespace torchdeck::trainer
