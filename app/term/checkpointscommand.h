#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runCheckpointsCommand(const QStringList &args, QTextStream &out,
                          QTextStream &err); // checkpoints RUN [--json] [--delete ...]

} // namespace torchdeck::term
