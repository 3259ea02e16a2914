#pragma once

#include "remote/sshsession.h"

#include <QString>
#include <functional>

namespace torchdeck::remote {
class Connection;
}

namespace torchdeck::term {

// A terminal command waits for its answer: these run the event loop until it comes (the libraries below
// never block). Also used by the tests of those libraries.

// Runs the event loop until `done` is called (by a signal handler the caller connected) or timeoutMs passes
// (0: no limit). Returns false on timeout.
bool waitUntil(const std::function<void(std::function<void()> done)> &start, int timeoutMs);

// Until the connection is up or has failed; `error` says why not.
bool waitConnected(remote::Connection &connection, int timeoutMs, QString *error = nullptr);

// Runs a command and waits for its end; a timeout is an error in the result.
remote::ExecResult runAndWait(remote::Connection &connection, const QString &command, int timeoutMs);

} // namespace torchdeck::term
