#pragma once

namespace torchdeck {

// How long to wait before trying again a restart the scheduler refused: 30 s, then twice the wait before,
// up to 30 minutes. A refusal (a full queue, a quota) rarely clears at once, and a run left to wait overnight
// must not hammer the scheduler. `previousSeconds`: the wait before this refusal, 0 for the first.
inline constexpr int kFirstRestartRetrySeconds = 30;
inline constexpr int kMaxRestartRetrySeconds = 30 * 60;
int nextRestartRetrySeconds(int previousSeconds);

} // namespace torchdeck
