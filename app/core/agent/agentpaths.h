#pragma once

#include "core/privatefiles.h"

#include <QString>

namespace torchdeck {

// Where the agent of a run store listens and keeps its files. One agent per user and run store: the socket's
// name comes from the data directory ($TORCHDECK_DATA_DIR), so tests with stores of their own get agents of
// their own.
struct AgentPaths {
    QString dataDirectory;
    QString socketPath; // $XDG_RUNTIME_DIR/torchdeck/agent-<hash>.sock, else <data>/agent.sock
    QString lockFile;   // held by the running agent (QLockFile: it holds the agent's pid)
    QString logFile;    // <data>/agent.log: what the agent did with no front to tell
};
AgentPaths agentPaths();

// How long the agent stays with no front attached and no run unfinished, in minutes (default 10; 0: it exits at
// once then): configDirectory()/agent.conf, set by `torchdeck agent --idle-exit` and the window's Settings.
int agentIdleExitMinutes();
void setAgentIdleExitMinutes(int minutes);

} // namespace torchdeck
