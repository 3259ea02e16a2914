#pragma once

#include <QStringList>

class QTextStream;

namespace torchdeck::term {

// torchdeck agent [status|stop|restart|on|off] [--json] [--idle-exit MINUTES]. `torchdeck agent` alone runs the agent
// in the foreground (what a front starts in the background, and what the login unit runs): main() dispatches that
// to the agent's library (session/agentmain.h), which the fronts do not link.
int runAgentCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
