#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

// A run's whole directory on the cluster (app/session/sessionrunfiles.cpp does the work in the agent).
int runFilesCommand(const QStringList &args, QTextStream &out, QTextStream &err); // files RUN [PATH] [--json]
int runPullCommand(const QStringList &args, QTextStream &out, QTextStream &err);  // pull RUN [FILE...] ...
int runShellCommand(const QStringList &args, QTextStream &out,
                    QTextStream &err); // shell RUN [--node N] [--command CMD]
int runDeleteCommand(const QStringList &args, QTextStream &out, QTextStream &err); // delete RUN... [--remote] ...

} // namespace torchdeck::term
