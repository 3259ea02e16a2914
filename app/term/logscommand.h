#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runLogsCommand(const QStringList &args, QTextStream &out,
                   QTextStream &err); // logs RUN [-f] [--attempt N]
int runMetricsCommand(const QStringList &args, QTextStream &out,
                      QTextStream &err); // metrics RUN [--csv|--json]

} // namespace torchdeck::term
