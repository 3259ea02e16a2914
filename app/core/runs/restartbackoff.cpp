#include "core/runs/restartbackoff.h"

#include <algorithm>

namespace torchdeck {

int nextRestartRetrySeconds(int previousSeconds)
{
    if (previousSeconds <= 0)
        return kFirstRestartRetrySeconds;
    return std::min(std::min(previousSeconds, kMaxRestartRetrySeconds) * 2, kMaxRestartRetrySeconds);
}

} // namespace torchdeck
