#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

// `torchdeck code CLUSTER [--prune] [--json]`: the code snapshots kept on a cluster (core/code/coderemote.h)
// and the runs that use them; --prune deletes those no unfinished run uses, and the files only they held.
int runCodeCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
