#pragma once

#include "core/scheduler/jobinfo.h"
#include "core/schedulerkind.h"

#include <QHash>
#include <QString>

namespace torchdeck {

// A job from its qstat -f attributes, keys lowercased ("job_state", "resource_list.walltime").
// exitCode keeps PBS's Exit_status as printed: negative values are PBS's own failure codes, 256 + n
// means killed by signal n (then also in .signal).
JobInfo pbsJobFromAttributes(const QString &id, const QHash<QString, QString> &attributes, PbsDialect dialect);

// What a finished PBS job (state F, X or C) came to, from what qstat -f shows of it:
// Exit_status 0 -> Completed; the walltime kill codes (PBS Pro -29 JOB_EXEC_KILL_WALLTIME, Torque -11)
// or a non-zero end after using its whole walltime -> Timeout; Torque 271 or a kill by SIGTERM/SIGKILL
// (qdel) -> Cancelled; other codes -> Failed. No exit status: by substate (91 terminated -> Cancelled,
// 93 failed -> Failed), else Completed with exitCode -1 (the output does not say).
struct PbsEnd {
    bool hasExitStatus = false;
    int exitStatus = 0;
    int substate = -1;
    qint64 walltimeUsed = -1;
    qint64 walltimeLimit = -1;
};
JobState pbsFinishedState(const PbsEnd &end, PbsDialect dialect);

} // namespace torchdeck
