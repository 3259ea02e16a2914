#pragma once

#include <QStringList>

class QTextStream;

namespace torchdeck::term {

int runClustersCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
