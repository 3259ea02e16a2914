#pragma once

#include "core/jobs/jobspec.h"

#include <QString>

namespace torchdeck {

// The default lead takes at most this share of the wall time (a fifth).
constexpr int kSignalLeadWallTimeShare = 5;
// torch.distributed.elastic gives its workers 30 s after the signal, then kills them.
constexpr int kTorchrunGraceSeconds = 30;
// The per-node launcher's lead: over its grace, with time to write a checkpoint.
constexpr int kPerNodeLauncherMinLeadSeconds = 40;

// The warning signal's lead before the wall time when the user names none: a fifth of a short wall time, at
// most kDefaultSignalLeadSeconds (300 s), and at least kPerNodeLauncherMinLeadSeconds under a per-node
// launcher. The fixed 300 s where the wall time is the partition's default (0).
int defaultSignalLeadSeconds(const JobSpec &spec);
// Why the default is what it is, for a person ("60 s: a fifth of the wall time"); empty for the fixed 300 s.
QString signalLeadDefaultReason(const JobSpec &spec);

} // namespace torchdeck
