#include "core/runs/pollschedule.h"

#include <algorithm>

namespace torchdeck {

namespace {
constexpr int quietPassesPerStretch = 6;
constexpr int mostStretches = 3;
constexpr int slowAnswerFactor = 10;
constexpr int endGraceMs = 1000;
} // namespace

int PollSchedule::intervalMs() const
{
    const int base = std::max(askedMs, minimumMs);
    const int stretched = std::max(
        base, std::min(base * (1 + std::min(mostStretches, quietPasses / quietPassesPerStretch)), kMostPollMs));
    return std::max(stretched, backoffMs);
}

PollSchedule PollSchedule::afterPass(bool quiet, bool queryFailed, qint64 answerMs) const
{
    PollSchedule next = *this;
    next.quietPasses = quiet ? quietPasses + 1 : 0;
    if (queryFailed)
        next.backoffMs = std::min(kMostPollMs, std::max(2 * backoffMs, 2 * intervalMs()));
    else
        next.backoffMs = int(std::min<qint64>(kMostPollMs, slowAnswerFactor * std::max<qint64>(0, answerMs)));
    return next;
}

PollSchedule PollSchedule::woken() const
{
    PollSchedule next = *this;
    next.quietPasses = 0;
    return next;
}

int shortenedRoundMs(int oldMs, int newMs, int remainingMs)
{
    const int due = std::max(0, newMs - (oldMs - std::max(0, remainingMs)));
    return due < remainingMs ? due : -1;
}

int pollSoonMs(qint64 sinceLastMs, int minimumMs)
{
    const qint64 since = sinceLastMs < 0 ? qint64(kMostPollMs) : sinceLastMs;
    return int(std::max<qint64>(endGraceMs, minimumMs - since));
}

} // namespace torchdeck
