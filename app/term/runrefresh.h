#pragma once

#include "core/store/runrecord.h"
#include "term/termcontext.h"

namespace torchdeck::term {

// Brings the unfinished ones of these runs up to date through their clusters' sessions (one scheduler poll
// each), restarts included: a restart a pass decides on is submitted before this returns. A cluster that
// cannot be reached is reported on stderr; the rest go on. Returns false if any cluster failed.
bool refreshRuns(TermContext &context, const QList<RunRecord> &runs);

} // namespace torchdeck::term
