#pragma once

#include <QStringList>

namespace torchdeck::term {

// Exit codes scripts can rely on.
enum ExitCode { Ok = 0, Failure = 1, UsageError = 2 };

bool isTerminalInvocation(const QStringList &args); // a subcommand or --help/--version was given
int runTerminal(const QStringList &args);           // args without the program name

} // namespace torchdeck::term
