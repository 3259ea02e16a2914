#pragma once

#include "core/scheduler/jobinfo.h"
#include "core/scheduler/pbsjob.h"

#include <QByteArray>

namespace torchdeck {

// Output of `qstat -f -F json [-x] ID...` (PBS Pro 18+, OpenPBS): an object whose "Jobs" maps each job id to
// its attributes; nested objects (Resource_List, resources_used) read as "resource_list.walltime". No "Jobs"
// key means no job matched. Output that is not a JSON object is one error and no jobs; a job whose entry
// is malformed is an error for that job only.
JobListResult parseQstatJson(const QByteArray &output, PbsDialect dialect = PbsDialect::PbsPro);

} // namespace torchdeck
