#pragma once

#include <QString>

namespace torchdeck {

// Starts `program agent` in the background, detached from the caller: a session of its own (no terminal,
// no signal from the caller's Ctrl-C), stdin from /dev/null, stdout and stderr appended to `logFile`, no other
// descriptor inherited (a shell's $(...) waits for its pipe to close, not for the agent). An error says why
// it could not start.
[[nodiscard]] QString startAgentProcess(const QString &program, const QString &logFile);

} // namespace torchdeck
