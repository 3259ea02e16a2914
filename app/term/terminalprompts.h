#pragma once

#include <QString>
#include <optional>

namespace torchdeck::remote {
class Connection;
}

namespace torchdeck::term {

// Answers a connection's host-key and credential questions on the controlling terminal (/dev/tty), secrets
// without echo. Without a terminal nothing is asked: the connection then fails with a clear message.
bool hasTerminal();
void answerOnTerminal(remote::Connection &connection);
std::optional<QString> readLineFromTerminal(const QString &prompt, bool echo);

} // namespace torchdeck::term
