#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runScriptCommand(const QStringList &args, QTextStream &out, QTextStream &err); // script CLUSTER [job]
int runSubmitCommand(const QStringList &args, QTextStream &out, QTextStream &err); // submit CLUSTER [job]
int runResumeCommand(const QStringList &args, QTextStream &out, QTextStream &err); // resume RUN [--from CKPT]

} // namespace torchdeck::term
