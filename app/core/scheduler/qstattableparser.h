#pragma once

#include "core/scheduler/jobinfo.h"

#include <QByteArray>

namespace torchdeck {

// qstat's default one-line-per-job table (also with -x for history): "Job id  Name  User  Time Use S Queue",
// a rule of dashes, then rows; columns are found from the rule, so names with spaces read right. Several
// tables (one per server) may follow each other. The table carries no exit status: a finished job (F, C)
// is Completed with exitCode -1; ask qstat -f for how it ended. An id cut short by qstat ("12345.ser*")
// is an error for that row.
JobListResult parseQstatTable(const QByteArray &output);

} // namespace torchdeck
