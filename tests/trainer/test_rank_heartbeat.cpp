#include "run/rank_heartbeat.h"
#include "test_files.h"

#include <chrono>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>

using namespace torchdeck::trainer;
using namespace torchdeck::trainer::test;

namespace {

std::string heartbeatLine(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// Waits for the writer thread (it writes within 100 ms of a mark); 30 s only bounds a broken writer.
std::string waitForLine(const std::string &path, const std::string &prefix)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::string line = heartbeatLine(path);
    while (line.rfind(prefix, 0) != 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        line = heartbeatLine(path);
    }
    return line;
}

} // namespace

// The stall alarm reads the line while the rank hangs in a phase: it must reach the file without another mark.
TEST(RankHeartbeat, WritesTheLastPhaseWhileTheRankStaysInIt)
{
    const std::string metrics = freshDir("heartbeat_live") + "/metrics.jsonl";
    RankHeartbeat heartbeat(metrics, 3);
    heartbeat.mark(7, "compute");
    const std::string line = waitForLine(metrics + ".rank3", "step=7 phase=compute time=");
    EXPECT_EQ(line.rfind("step=7 phase=compute time=", 0), 0u) << line;
    std::ifstream whole(metrics + ".rank3", std::ios::binary);
    std::stringstream bytes;
    bytes << whole.rdbuf();
    EXPECT_EQ(bytes.str().size(), 64u); // one fixed-size line, rewritten in place
}

// Each bucket's launch marks "allreduce" again: the line keeps the time the phase began.
TEST(RankHeartbeat, KeepsTheTimeAPhaseBegan)
{
    const std::string metrics = freshDir("heartbeat_began") + "/metrics.jsonl";
    std::string first;
    {
        RankHeartbeat heartbeat(metrics, 0);
        heartbeat.mark(1, "allreduce");
        first = waitForLine(metrics + ".rank0", "step=1 phase=allreduce time=");
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // a later time would show in the line
        heartbeat.mark(1, "allreduce");
    }
    EXPECT_EQ(first.rfind("step=1 phase=allreduce time=", 0), 0u) << first;
    EXPECT_EQ(heartbeatLine(metrics + ".rank0"), first);
}

// The last mark is on disk when the trainer ends, however soon after the mark.
TEST(RankHeartbeat, WritesTheLastMarkAtTheEnd)
{
    const std::string metrics = freshDir("heartbeat_end") + "/metrics.jsonl";
    {
        RankHeartbeat heartbeat(metrics, 1);
        heartbeat.mark(2, "compute");
        heartbeat.mark(2, "allreduce");
        heartbeat.mark(2, "checkpoint");
    }
    const std::string line = heartbeatLine(metrics + ".rank1");
    EXPECT_EQ(line.rfind("step=2 phase=checkpoint time=", 0), 0u) << line;
}
