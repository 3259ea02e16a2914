#pragma once

// Blocking waits on the remote library, for its tests and benchmarks (the library itself never blocks; the
// fronts wait through the agent, term/blocking.h).
#include "core/eventwait.h"
#include "remote/connection.h"

namespace torchdeck::testing {

using torchdeck::waitUntil;

// Until the connection is up or has failed; `error` says why not.
bool waitConnected(remote::Connection &connection, int timeoutMs, QString *error = nullptr);

// Runs a command and waits for its end; a timeout is an error in the result.
remote::ExecResult runAndWait(remote::Connection &connection, const QString &command, int timeoutMs);

} // namespace torchdeck::testing
