#include "run/rank_heartbeat.h"

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace torchdeck::trainer {

namespace {
constexpr int kLineBytes = 64; // fixed: a shorter line never leaves the tail of a longer one behind
}

RankHeartbeat::RankHeartbeat(const std::string &metricsPath, int rank)
{
    if (metricsPath.empty())
        return;
    const std::string path = metricsPath + ".rank" + std::to_string(rank);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

RankHeartbeat::~RankHeartbeat()
{
    if (fd_ >= 0)
        ::close(fd_);
}

void RankHeartbeat::mark(std::int64_t step, const char *phase)
{
    if (fd_ < 0)
        return;
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    char line[kLineBytes + 1];
    const int n =
        std::snprintf(line, sizeof line, "step=%lld phase=%s time=%.3f", static_cast<long long>(step), phase, now);
    if (n <= 0)
        return;
    for (int i = n; i < kLineBytes - 1; ++i)
        line[i] = ' ';
    line[kLineBytes - 1] = '\n';
    // Best effort: a heartbeat that cannot be written must not stop training.
    if (::pwrite(fd_, line, kLineBytes, 0) != kLineBytes)
        return;
}

} // namespace torchdeck::trainer
