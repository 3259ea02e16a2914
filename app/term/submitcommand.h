#pragma once

#include "remote/runlauncher.h"

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

int runScriptCommand(const QStringList &args, QTextStream &out, QTextStream &err); // script CLUSTER [job]
int runSubmitCommand(const QStringList &args, QTextStream &out, QTextStream &err); // submit CLUSTER [job]
int runResumeCommand(const QStringList &args, QTextStream &out, QTextStream &err); // resume RUN [--from CKPT]

class TermContext;

// The next attempt of a finished run of the bundled trainer, from a checkpoint ("auto", a path, a file name or
// a step as `checkpoints` lists them), optionally for a new number of epochs. Nothing when it cannot resume.
std::optional<remote::LaunchRequest> resumeRequest(TermContext &context, const RunRecord &run, QString from,
                                                   const QString &epochs, QString *error);

} // namespace torchdeck::term
