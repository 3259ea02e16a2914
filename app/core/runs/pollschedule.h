#pragma once

#include <QtGlobal>

namespace torchdeck {

// How often a cluster's scheduler is asked (docs/agent.md, "Polling"): the fronts' wish, never under the profile's
// minimum; stretched while nothing starts or ends (every sixth quiet pass in a row by one more interval, up to four
// times and 5 minutes); held back while the scheduler fails (twice the wait each time) or answers slowly (ten times
// its answer's time between polls). A value: the agent's session keeps one and asks it, its timer does the waiting.
inline constexpr int kDefaultPollMs = 3000;
inline constexpr int kMostPollMs = 5 * 60 * 1000;

struct PollSchedule {
    int askedMs = kDefaultPollMs; // the fronts' wish
    int minimumMs = 0;            // the profile's min_poll_seconds
    int quietPasses = 0;          // passes in a row in which no job started, ended or waited
    int backoffMs = 0;            // while the scheduler fails or is slow

    // The interval to poll at now.
    int intervalMs() const;
    // After a pass: quiet or not, and how the scheduler's query went (failed, or how long its answer took).
    PollSchedule afterPass(bool quiet, bool queryFailed, qint64 answerMs) const;
    // A job says it stops: the next passes are short again.
    PollSchedule woken() const;
};

// When the next poll is due after the interval changed from `oldMs` to `newMs` with `remainingMs` of the round left:
// the last poll + the new interval, when that is sooner (a shortened round); else -1 (the round under way stands).
int shortenedRoundMs(int oldMs, int newMs, int remainingMs);
// When to poll after a job says it stops: a second for its scheduler to know, but never sooner after the last poll
// (`sinceLastMs` ago; < 0: none yet) than the profile's minimum.
int pollSoonMs(qint64 sinceLastMs, int minimumMs);

} // namespace torchdeck
