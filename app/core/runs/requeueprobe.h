#pragma once

#include "core/clustercheckitem.h"
#include "core/profiles/clusterprofile.h"

#include <QList>
#include <QString>
#include <optional>

namespace torchdeck {

// "In-job requeue" of `torchdeck check` (Slurm): one shell command, run on the login node, that submits a tiny
// job which runs `scontrol requeue` on itself, watches it until Slurm counts a restart (allowed), the job ends
// without one (refused), or `waitSeconds` pass without it starting (undecided), and cancels what is left.
// It prints one line: "allowed ID", "refused ID", "undecided ID" or "submit-failed TEXT".
QString requeueProbeCommand(const ClusterCheckSettings &settings, int waitSeconds);
// The check's line from what the command printed; its finding is what the profile keeps.
CheckItem requeueProbeItem(int exitCode, const QString &output, int waitSeconds);

inline const QString kRequeueAllowed = QStringLiteral("allowed");
inline const QString kRequeueRefused = QStringLiteral("refused");

// What a check's lines found about in-job requeue, to keep in the cluster's profile; nothing when the check did
// not find out.
std::optional<InJobRequeue> requeueFinding(const QList<CheckItem> &items);

} // namespace torchdeck
