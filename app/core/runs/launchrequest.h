#pragma once

#include "remote/runlauncher.h"

namespace torchdeck {
class RunStore;
}

namespace torchdeck::remote {

// The next attempt of a finished run of the bundled trainer, from a checkpoint ("auto", a path, or a file
// name or step as the run's checkpoints list them), optionally for a new number of epochs. Shared by the
// fronts and the automatic restart. Nothing, with `error` set, when it cannot resume.
std::optional<LaunchRequest> resumeRequest(const RunStore &store, const ClusterProfile &profile, const RunRecord &run,
                                           QString from, const QString &epochs, QString *error);

} // namespace torchdeck::remote
