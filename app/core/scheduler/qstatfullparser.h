#pragma once

#include "core/scheduler/jobinfo.h"
#include "core/scheduler/pbsjob.h"

#include <QByteArray>

namespace torchdeck {

// Output of `qstat -f [-x] ID...` in text: a "Job Id: ID" line, then "    name = value" lines; a long value
// wraps onto lines that start with a tab (PBS Pro, Torque). Slurm's wrapper indents every attribute with a
// tab and never wraps: the first attribute line of a job tells which indent marks an attribute.
JobListResult parseQstatFull(const QByteArray &output, PbsDialect dialect);

} // namespace torchdeck
