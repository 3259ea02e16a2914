#pragma once

#include "core/profiles/clusterprofile.h"

#include <QString>
#include <optional>

namespace torchdeck {

// How a new run goes on when its job stops at its wall time or is preempted: it requeues itself inside the
// job (one job id throughout, no laptop needed), or the agent restarts it from outside as a new job. In-job
// requeue is the default where `torchdeck check` proved the cluster allows it; --requeue/--no-requeue (the
// form's box) choose for one run.
struct RestartMechanism {
    bool inJobRequeue = false;
    QString why; // one line for `submit` and the job form
};
// `chosen`: what the user asked for this run, if anything.
RestartMechanism restartMechanism(const ClusterProfile &profile, std::optional<bool> chosen);
// A run that may move to another cluster (--move-after): always the agent's restart, a new job that can go elsewhere.
RestartMechanism movingRestartMechanism();

} // namespace torchdeck
