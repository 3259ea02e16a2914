#pragma once

#include <QStringList>
#include <QTextStream>

namespace torchdeck::term {

// forward RUN REMOTE_PORT [LOCAL_PORT] | --list | --stop RUN|LOCAL_PORT: the agent keeps the forward.
int runForwardCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace torchdeck::term
