#pragma once

#include "core/scheduler/schedulercommands.h"
#include "core/store/runrecord.h"

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

class TermContext;

// The jobs of a run that can still be cancelled, and the scheduler commands that reach them (a local run
// keeps its state beside the run): what cancel needs, from the command line and from watch.
struct UnfinishedJobs {
    QStringList ids; // newest attempt first
    SchedulerCommands commands;
};
UnfinishedJobs unfinishedJobs(TermContext &context, const RunRecord &run);

int runCancelCommand(const QStringList &args, QTextStream &out, QTextStream &err); // cancel RUN...
int runCheckpointsCommand(const QStringList &args, QTextStream &out,
                          QTextStream &err); // checkpoints RUN [--json]

} // namespace torchdeck::term
