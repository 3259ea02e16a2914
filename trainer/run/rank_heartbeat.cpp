#include "run/rank_heartbeat.h"

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace torchdeck::trainer {

namespace {
constexpr int kLineBytes = 64; // fixed: a shorter line never leaves the tail of a longer one behind
constexpr auto kWriteEvery = std::chrono::milliseconds(100);
} // namespace

RankHeartbeat::RankHeartbeat(const std::string &metricsPath, int rank)
{
    if (metricsPath.empty())
        return;
    const std::string path = metricsPath + ".rank" + std::to_string(rank);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
        return;
    try {
        writer_ = std::thread([this] { writeLoop(); });
    } catch (const std::system_error &) { // no thread to be had: train without the heartbeat
        ::close(fd_);
        fd_ = -1;
    }
}

RankHeartbeat::~RankHeartbeat()
{
    if (writer_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        stopped_.notify_one();
        writer_.join();
    }
    if (fd_ >= 0)
        ::close(fd_);
}

void RankHeartbeat::mark(std::int64_t step, const char *phase)
{
    if (fd_ < 0)
        return;
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    std::lock_guard<std::mutex> lock(mutex_);
    if (mark_.step == step && mark_.phase == phase)
        return; // the same phase again (each bucket's launch marks "allreduce"): it began earlier
    mark_.step = step;
    mark_.phase = phase;
    mark_.time = now;
    ++mark_.serial;
}

void RankHeartbeat::writeLoop()
{
    std::uint64_t written = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        const bool stopping = stopped_.wait_for(lock, kWriteEvery, [this] { return stopping_; });
        if (mark_.serial != written) {
            const Mark m = mark_;
            written = m.serial;
            lock.unlock();
            write(m);
            lock.lock();
        }
        if (stopping)
            return;
    }
}

void RankHeartbeat::write(const Mark &m) const
{
    char line[kLineBytes + 1];
    const int n = std::snprintf(line, sizeof line, "step=%lld phase=%s time=%.3f", static_cast<long long>(m.step),
                                m.phase, m.time);
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
