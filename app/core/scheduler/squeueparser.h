#pragma once

#include "core/scheduler/jobinfo.h"

#include <QByteArray>
#include <QString>

namespace torchdeck {

// The squeue --Format torchdeck asks for: each field unpadded (":0") and ended by '|', Name last so a
// '|' in a job name stays inside it.
QString squeueFormat();

// Output of `squeue --noheader --states=all --jobs=... --Format=<squeueFormat()>`, one job per line.
JobListResult parseSqueue(const QByteArray &output);

} // namespace torchdeck
