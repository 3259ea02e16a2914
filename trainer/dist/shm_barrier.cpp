#include "dist/shm_barrier.h"

#include <algorithm>
#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <stdexcept>
#include <sys/syscall.h>
#include <unistd.h>

namespace torchdeck::trainer {

namespace {

constexpr int kSpins = 2000;
constexpr auto kMaxSleep = std::chrono::milliseconds(100);

// Shared (not FUTEX_PRIVATE): the word is in a mapping of several processes.
void futexWait(std::atomic<std::uint32_t> &word, std::uint32_t expected, std::chrono::nanoseconds timeout)
{
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(timeout.count() / 1000000000);
    ts.tv_nsec = static_cast<long>(timeout.count() % 1000000000);
    syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void futexWakeAll(std::atomic<std::uint32_t> &word)
{
    syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

void cpuRelax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

} // namespace

void shmBarrierWait(ShmBarrierState &state, std::uint32_t parties, std::chrono::steady_clock::time_point deadline)
{
    const std::uint32_t generation = state.generation.load(std::memory_order_acquire);
    if (state.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == parties) {
        state.arrived.store(0, std::memory_order_relaxed);
        state.generation.fetch_add(1, std::memory_order_acq_rel);
        futexWakeAll(state.generation);
        return;
    }
    for (int i = 0; i < kSpins; ++i) {
        if (state.generation.load(std::memory_order_acquire) != generation)
            return;
        cpuRelax();
    }
    while (state.generation.load(std::memory_order_acquire) == generation) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline)
            throw std::runtime_error("shared-memory collective timed out: another rank died or hangs");
        futexWait(state.generation, generation, std::min<std::chrono::nanoseconds>(deadline - now, kMaxSleep));
    }
}

} // namespace torchdeck::trainer
