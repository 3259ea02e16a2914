#pragma once

#include "core/jobs/clustercaps.h"

#include <QString>

namespace torchdeck {

// #SBATCH and #PBS lines are read by the scheduler, not by a shell, and their quoting differs between
// versions (sbatch even blanks the word "hetjob" anywhere on the line). So a value that goes there must
// need no quoting at all: letters, digits and . _ , : = @ % + / -. Returns why `value` cannot, or "".
QString directiveValueProblem(const QString &value, SchedulerKind scheduler);

// Log paths may use %j (job id), %x (job name) and %% only: the PBS and local scripts expand those, and the
// dashboard must know the file to tail. Returns why `path` is not such a pattern, or "".
QString logPatternProblem(const QString &path);

// An extra directive line written by the user: one line, no control characters. Returns the problem or "".
QString rawDirectiveProblem(const QString &line, SchedulerKind scheduler);

} // namespace torchdeck
