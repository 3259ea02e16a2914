#pragma once

namespace torchdeck {

// `torchdeck agent`: runs the agent of this user and run store in the foreground until it stops (idle, asked
// to stop or hand over, SIGTERM or SIGINT). 0 when it ran or another agent of the store already runs.
int runAgentProcess();

} // namespace torchdeck
