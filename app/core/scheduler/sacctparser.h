#pragma once

#include "core/scheduler/jobinfo.h"

#include <QByteArray>
#include <QString>

namespace torchdeck {

// The sacct --format torchdeck asks for, JobName last so a '|' in a name stays inside it.
QString sacctFormat();

// Output of `sacct --parsable2 --noheader --allocations --jobs=... --format=<sacctFormat()>`, from
// accounting (slurmdbd) or from the job completion file (`sacct -c`, same format). Step lines (123.batch)
// are skipped. A job listed more than once (requeued: the jobcomp file keeps one record per run) is
// reported once, as its last line says.
JobListResult parseSacct(const QByteArray &output);

} // namespace torchdeck
