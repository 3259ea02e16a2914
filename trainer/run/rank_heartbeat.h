#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace torchdeck::trainer {

// What each rank is doing now, for the dashboard's stall alarm: `<metrics file>.rank<N>` holds one line,
// "step=S phase=P time=T" (T: when the phase began), for the phases compute, allreduce, eval and
// checkpoint. When a job stops making progress, the rank still in "compute" while the others wait in
// "allreduce" is the one that hangs.
//
// mark() is on the step's path (several times a step, from autograd threads too): it only notes the phase
// under a lock. A thread of its own writes the line when it changed, every `kWriteEvery` and at the end, so
// the step never waits for a system call; a stall is told within that delay, far below the alarm's minutes.
class RankHeartbeat {
public:
    RankHeartbeat() = default;
    RankHeartbeat(const std::string &metricsPath, int rank); // empty path: does nothing
    ~RankHeartbeat();
    RankHeartbeat(const RankHeartbeat &) = delete;
    RankHeartbeat &operator=(const RankHeartbeat &) = delete;

    void mark(std::int64_t step, const char *phase); // phase: a string literal

private:
    struct Mark {
        std::int64_t step = 0;
        const char *phase = nullptr;
        double time = 0;
        std::uint64_t serial = 0; // counts the marks
    };

    void writeLoop();
    void write(const Mark &m) const;

    int fd_ = -1;
    std::mutex mutex_;
    std::condition_variable stopped_;
    bool stopping_ = false;
    Mark mark_;
    std::thread writer_;
};

} // namespace torchdeck::trainer
