#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace torchdeck::trainer {

// The control block of a barrier that lives in memory shared by the processes of one node: arrivals are
// counted with an atomic, the last arrival bumps the generation and wakes the sleepers with a futex.
// Waiters spin briefly, then sleep (the ranks may share few cores).
struct alignas(64) ShmBarrierState {
    std::atomic<std::uint32_t> arrived{0};
    alignas(64) std::atomic<std::uint32_t> generation{0};
};

static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "process-shared atomics must be lock free");

// Blocks until all `parties` processes arrived; throws std::runtime_error when `deadline` passes first
// (a rank died or hangs).
void shmBarrierWait(ShmBarrierState &state, std::uint32_t parties, std::chrono::steady_clock::time_point deadline);

} // namespace torchdeck::trainer
