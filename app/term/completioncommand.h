#pragma once

#include <QStringList>

class QTextStream;

namespace torchdeck::term {

int runCompletionCommand(const QStringList &args, QTextStream &out, QTextStream &err); // completion SHELL
int runManPageCommand(const QStringList &args, QTextStream &out, QTextStream &err);    // manpage
// __complete clusters|runs|commands: one value per line, for the completion scripts (and, for the tests,
// `options COMMAND` and `values COMMAND OPTION`). Local and cheap: the ssh
// config and the run store, never the network; prints nothing rather than an error.
int runCompleteValuesCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
