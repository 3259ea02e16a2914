#pragma once

#include <functional>

namespace torchdeck {

// For callers that must wait for an answer (a terminal command, a test): runs the event loop until `done` is
// called (by a signal handler the caller connected in `start`) or timeoutMs passes (0: no limit). Returns
// false on timeout. The libraries never block; only their callers at the top wait.
bool waitUntil(const std::function<void(std::function<void()> done)> &start, int timeoutMs);

} // namespace torchdeck
