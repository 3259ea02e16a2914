#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runCancelCommand(const QStringList &args, QTextStream &out, QTextStream &err); // cancel RUN...
int runCheckpointsCommand(const QStringList &args, QTextStream &out,
                          QTextStream &err); // checkpoints RUN [--json]

} // namespace torchdeck::term
