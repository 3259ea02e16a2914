#pragma once

#include "core/scheduler/jobinfo.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

// Local runs: the script runs in the background, in its own session (so cancel reaches all its
// processes); its pid is the job id; STATEDIR/PID.log gets its output and STATEDIR/PID.exit its exit code.
namespace torchdeck::local {

QStringList submitArgs(const QString &stateDir, const QString &scriptPath); // prints the pid: parseLocalReply
QStringList statusArgs(const QString &stateDir, const QStringList &ids);    // parseLocalStatus
QStringList startedFromArgs(const QString &stateDir,
                            const QString &scriptPath); // the runs of a script: parseLocalStatus
QStringList cancelArgs(const QStringList &ids);         // SIGTERM to each run's group

// statusArgs' output, one line per id: "PID running", "PID exited CODE", "PID gone" (no process and no
// exit file: killed before it could record one).
JobListResult parseLocalStatus(const QByteArray &output);

} // namespace torchdeck::local
