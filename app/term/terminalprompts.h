#pragma once

#include <QString>
#include <optional>

namespace torchdeck {
class AgentClient;
}

namespace torchdeck::term {

// Answers the host-key and credential questions the agent sends this front on the controlling terminal
// (/dev/tty), secrets without echo. Without a terminal the front says it cannot ask, and none come.
bool hasTerminal();
void answerOnTerminal(AgentClient &agent);
std::optional<QString> readLineFromTerminal(const QString &prompt, bool echo);

} // namespace torchdeck::term
