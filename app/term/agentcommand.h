#pragma once

#include <QStringList>

class QTextStream;

namespace torchdeck::term {

// torchdeck agent [status|stop|on|off] [--json] [--idle-exit MINUTES]: without an action, runs the agent in the
// foreground (what a front starts in the background, and what the login unit runs).
int runAgentCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
