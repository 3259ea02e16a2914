#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

// What the user calls a run and writes of it, stored with the run by the agent (agent::AnnotateRun).
int runNoteCommand(const QStringList &args, QTextStream &out, QTextStream &err);   // note RUN [TEXT]
int runTagCommand(const QStringList &args, QTextStream &out, QTextStream &err);    // tag RUN|SWEEP NAME... [--remove]
int runRenameCommand(const QStringList &args, QTextStream &out, QTextStream &err); // rename RUN NAME

} // namespace torchdeck::term
