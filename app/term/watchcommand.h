#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

// watch [RUN...] [--interval SECONDS] [--plain] [--until-done]: the live dashboard (full screen on a
// terminal, plain lines elsewhere).
int runWatchCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
