#pragma once

#include "term/render/watchsnapshot.h"

#include <QStringList>

namespace torchdeck::term {

// One plain line for a run, no ANSI: "run 1a2b3c4d RUNNING epoch 2/4 loss 0.0213 eta 35s".
QString plainRunLine(const WatchRunRow &run);
// What `watch` prints when stdout is not a terminal: a line for each new run and for each run whose state,
// epoch or jobs changed since `previous` (the loss alone changes every step: it rides along, it does not
// trigger a line), and the message when it changed.
QStringList renderPlainUpdate(const WatchSnapshot &previous, const WatchSnapshot &current);

} // namespace torchdeck::term
