#pragma once

#include <QString>

namespace torchdeck {

struct ClusterProfile;

// Building the trainer in a PBS job. PBS has nothing like a blocking `srun`, so the job is submitted with
// qsub and followed: its log streams back and qstat is asked until the job has ended. The job runs the
// build script written beside it and ends its log with the build's exit code, which the follower returns.

// The job script (rendered by core like any job: the profile's queue, account, modules) for a build in
// `trainerDir`; empty with `error` set when the profile's values cannot go into a PBS script.
QString pbsBuildJobScript(const ClusterProfile &profile, const QString &trainerDir, int cpus, QString *error);

// A POSIX shell command, run in the trainer directory, that writes `buildScript` and `jobScript` there,
// submits the job, prints its log as it grows and exits with the build's exit code.
QString pbsBuildAndWaitCommand(const QString &buildScript, const QString &jobScript);

} // namespace torchdeck
