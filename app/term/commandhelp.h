#pragma once

#include <QStringList>

namespace torchdeck::term {

struct CommandSpec;

// Texts generated from the command table (commandtable.h).
QString usageText();                             // torchdeck --help
QString commandHelpText(const CommandSpec &cmd); // torchdeck help COMMAND, torchdeck COMMAND --help
QString manPage(const QString &version);         // torchdeck.1, roff (man 7 groff_man)

// Whether a command's arguments ask for its help: a bare -h/--help, not the value of an option before it.
bool asksForHelp(const CommandSpec &command, const QStringList &args);

} // namespace torchdeck::term
