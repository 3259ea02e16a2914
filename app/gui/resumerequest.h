#pragma once

#include "remote/runlauncher.h"

#include <optional>

namespace torchdeck {

class ProfileStore;
class RunStore;

// The next attempt of a finished run of the bundled trainer, from a checkpoint ("auto", "none" or a path),
// optionally for a new number of epochs. Nothing, with the reason in `error`, when it cannot resume.
// remote::resumeRequest with the run's cluster profile.
std::optional<remote::LaunchRequest> resumeRequest(const RunStore &store, const ProfileStore &profiles,
                                                   const RunRecord &run, const QString &from, const QString &epochs,
                                                   QString *error);

// A new run of `spec` on the profile's cluster; the bundled trainer resumes "auto" so a requeued attempt
// continues from its checkpoint (as `torchdeck submit` does).
remote::LaunchRequest newRunRequest(const ClusterProfile &profile, const JobSpec &spec, const QString &script = {});

} // namespace torchdeck
