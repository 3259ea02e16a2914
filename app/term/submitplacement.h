#pragma once

#include "core/runs/launchrequest.h"
#include "core/runs/startestimate.h"
#include "term/termcontext.h"

#include <functional>

namespace torchdeck::term {

// `submit A,B` and `script A,B`: a run offered to several clusters, sent where it would start soonest.

// The clusters of "A,B,..." in order, each once; empty with `error` set for an empty name.
QStringList candidateClusters(const QString &text, QString *error);

// Connects to each candidate and asks its scheduler when the job `requestFor(cluster)` describes would start
// (a cluster that cannot run it, or cannot be reached, is skipped with its reason), prints the estimates on
// stderr and chooses the soonest (core's soonestStart). `chosen` is empty when none can run it.
Placement placeAmong(TermContext &context, const QStringList &clusters,
                     const std::function<LaunchRequest(const QString &)> &requestFor);

// The script each candidate would be sent, one after the other under a "# ==> CLUSTER <==" line; a candidate
// that cannot run the job says why instead. False when none can.
bool previewEach(TermContext &context, const QStringList &clusters,
                 const std::function<LaunchRequest(const QString &)> &requestFor);

} // namespace torchdeck::term
