#pragma once

#include "core/store/runrecord.h"
#include "term/termcontext.h"

namespace torchdeck::term {

// Brings the unfinished ones of these runs up to date from their clusters (one connection per cluster,
// one scheduler poll each). A cluster that cannot be reached is reported on stderr; the rest go on.
// Returns false if any cluster failed.
bool refreshRuns(TermContext &context, const QList<RunRecord> &runs);

bool isUnfinishedRun(const RunRecord &run);

} // namespace torchdeck::term
