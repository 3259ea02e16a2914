#pragma once

#include "remote/runlauncher.h"

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runScriptCommand(const QStringList &args, QTextStream &out, QTextStream &err); // script CLUSTER [job]
int runSubmitCommand(const QStringList &args, QTextStream &out, QTextStream &err); // submit CLUSTER [job]
int runResumeCommand(const QStringList &args, QTextStream &out, QTextStream &err); // resume RUN [--from CKPT]

class TermContext;

// remote::resumeRequest with the context's store and the run's cluster profile.
std::optional<remote::LaunchRequest> resumeRequest(TermContext &context, const RunRecord &run, const QString &from,
                                                   const QString &epochs, QString *error);

} // namespace torchdeck::term
