#pragma once

#include <cstdint>
#include <string>

namespace torchdeck::trainer {

// What each rank is doing now, for the dashboard's stall alarm: `<metrics file>.rank<N>` holds one line,
// "step=S phase=P time=T", rewritten in place at every change of phase (compute, allreduce, eval,
// checkpoint). When a job stops making progress, the rank still in "compute" while the others wait in
// "allreduce" is the one that hangs. A few bytes per phase: no syscall beyond one pwrite.
class RankHeartbeat {
public:
    RankHeartbeat() = default;
    RankHeartbeat(const std::string &metricsPath, int rank); // empty path: does nothing
    ~RankHeartbeat();
    RankHeartbeat(const RankHeartbeat &) = delete;
    RankHeartbeat &operator=(const RankHeartbeat &) = delete;

    void mark(std::int64_t step, const char *phase);

private:
    int fd_ = -1;
};

} // namespace torchdeck::trainer
