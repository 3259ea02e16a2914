#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

// stack RUN: the stacks of every process of the run's running job (py-spy or gdb on its nodes), printed and
// kept by the agent in the data folder (stacks/RUN/TIME.txt).
int runStackCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
