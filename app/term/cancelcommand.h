#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runCancelCommand(const QStringList &args, QTextStream &out, QTextStream &err); // cancel RUN...

} // namespace torchdeck::term
