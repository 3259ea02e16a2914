#pragma once

#include "core/schedulerkind.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace torchdeck {

// A job's own record of itself in its run directory (RunLayout::traceFile): the script's first act appends
// "start <job id>", its EXIT trap "end <job id> <exit code>". It needs no accounting and outlives the
// scheduler's memory, so a submission whose reply was lost (an agent killed after sbatch answered) is found
// days later, and a job the scheduler forgot is known to have ended. An in-job requeue appends to the same file.
struct JobTrace {
    QString jobId;      // of the last "start" line; empty: the job never started (or the file is unreadable)
    bool ended = false; // the last line of that job is its "end"
    int exitCode = -1;  // with ended

    bool started() const { return !jobId.isEmpty(); }
};

// Reads a trace file's text; torn or foreign lines are skipped (a job killed mid-write, an edited file).
JobTrace parseJobTrace(const QByteArray &text);

// The script lines that keep the trace at `path`, first in the script (after strict mode and, for PBS and
// local jobs, td_job_id). The id is the one the run store keeps: a Slurm array task's "<array id>_<task>".
// Empty path: none.
QStringList jobTraceLines(const QString &path, SchedulerKind scheduler);

} // namespace torchdeck
