#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

// profile CLUSTER [settings...] [--reset] [--json]: shows, changes or forgets torchdeck's settings of a
// cluster.
int runProfileCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
