#pragma once

#include "remote/connection.h"
#include "remote/stepsequence.h"

#include <QByteArray>
#include <QString>
#include <functional>

namespace torchdeck::remote {

// How a command of a step runs: its deadline, and where its output goes while it runs (a long build).
struct CommandStepOptions {
    int deadlineMs = kDefaultCommandDeadlineMs;
    std::function<void(const QByteArray &)> output; // empty: the output only comes with the end
};

// One shell command as (part of) `step`: `then` gets its standard output when it exits 0; otherwise the step
// fails with "<what>: <the link's error>" or "<what> failed (exit code N):\n<the tail of its output>".
void runCommandStep(Connection *connection, const StepHandle &step, const QString &what, const QString &command,
                    const std::function<void(const QByteArray &)> &then, const CommandStepOptions &options = {});

} // namespace torchdeck::remote
