#include "data/distributed_sampler.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace torchdeck::trainer;

using Indices = std::vector<std::int64_t>;

TEST(DistributedSampler, EqualsPyTorchsDistributedSampler)
{
    // Python 1.13: DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=True, seed=5), set_epoch(1)
    const Indices expected[] = {{0, 1, 9, 6}, {7, 8, 2, 0}, {5, 3, 4, 7}};
    for (int rank = 0; rank < 3; ++rank) {
        const DistributedSampler sampler(10, 3, rank, true, 5);
        EXPECT_EQ(sampler.shardSize(), 4);
        EXPECT_EQ(sampler.epochIndices(1), expected[rank]) << "rank " << rank;
    }
}

TEST(DistributedSampler, ShardsCoverTheDataOnce)
{
    const DistributedSampler r0(1000, 2, 0, true, 1);
    const DistributedSampler r1(1000, 2, 1, true, 1);
    for (std::int64_t epoch = 0; epoch < 3; ++epoch) {
        const Indices a = r0.epochIndices(epoch);
        const Indices b = r1.epochIndices(epoch);
        ASSERT_EQ(a.size(), 500u);
        ASSERT_EQ(b.size(), 500u);
        std::set<std::int64_t> all(a.begin(), a.end());
        all.insert(b.begin(), b.end());
        EXPECT_EQ(all.size(), 1000u);
    }
    EXPECT_NE(r0.epochIndices(0), r0.epochIndices(1)) << "a new order every epoch";
    EXPECT_EQ(r0.epochIndices(2), DistributedSampler(1000, 2, 0, true, 1).epochIndices(2)) << "deterministic";
}

TEST(DistributedSampler, InterleavesTheGlobalOrder)
{
    // Rank r takes positions r, r+W, ...: batch k of every rank together is batch k of one process with
    // W times the batch size. The distributed equivalence tests rely on this.
    const Indices whole = DistributedSampler(12, 1, 0, true, 3).epochIndices(0);
    const Indices r0 = DistributedSampler(12, 2, 0, true, 3).epochIndices(0);
    const Indices r1 = DistributedSampler(12, 2, 1, true, 3).epochIndices(0);
    for (std::size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(r0[i], whole[2 * i]);
        EXPECT_EQ(r1[i], whole[2 * i + 1]);
    }
}

TEST(DistributedSampler, PadsByWrappingAround)
{
    const Indices whole = DistributedSampler(5, 1, 0, false, 0).epochIndices(0);
    EXPECT_EQ(whole, (Indices{0, 1, 2, 3, 4}));
    EXPECT_EQ(DistributedSampler(5, 4, 3, false, 0).epochIndices(0), (Indices{3, 2}));
    EXPECT_EQ(strideShard(5, 2, 1), (Indices{1, 3}));
    EXPECT_EQ(strideShard(5, 2, 0), (Indices{0, 2, 4}));
}
