#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

// sweep CLUSTER [job options] --vary NAME=V1,V2,...: one run per point of the grid, every point checked first.
int runSweepCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// sweeps [SWEEP] [--json | --markdown | --csv] [--cancel]: the sweeps, or one sweep's table.
int runSweepsCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
