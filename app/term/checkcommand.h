#pragma once

#include <QStringList>

class QTextStream;

namespace torchdeck::term {

int runCheckCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
