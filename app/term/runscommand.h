#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runRunsCommand(const QStringList &args, QTextStream &out, QTextStream &err);   // runs [--json] [--offline]
int runStatusCommand(const QStringList &args, QTextStream &out, QTextStream &err); // status RUN [--json]
// auto-restart RUN [on|off]: the run's automatic restart from outside (on unless switched off)
int runAutoRestartCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
