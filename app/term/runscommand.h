#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runRunsCommand(const QStringList &args, QTextStream &out, QTextStream &err);   // runs [--json] [--offline]
int runStatusCommand(const QStringList &args, QTextStream &out, QTextStream &err); // status RUN [--json]

} // namespace torchdeck::term
