#pragma once

#include "core/metrics/metricseries.h"
#include "core/store/runrecord.h"

#include <QList>
#include <QString>

namespace torchdeck {

// Why an attempt (one scheduler job of a run) ended, as the run view labels its boundary.
enum class AttemptEnd {
    Running,   // not ended yet
    Completed, // the last attempt, done
    Continued, // completed, and a later attempt trained on (resume with more epochs)
    WallTime,  // the scheduler's wall time, or its warning signal before it
    Preempted, // the scheduler took the nodes back
    Requeued,  // put back in the queue (by itself or by the scheduler)
    Branched,  // a later attempt resumed from an older checkpoint than this one's latest
    Failed,    // an error
    Cancelled,
};
QString attemptEndName(AttemptEnd end); // "wall time", "preempted", ... (for a person)

// One attempt's part of a series: where its points lie and how many a later attempt discarded.
struct AttemptSegment {
    int attempt = 0;
    QString jobId;
    AttemptEnd end = AttemptEnd::Running;
    int exitCode = -1;
    double firstX = kNoValue; // its first and last point, visible or discarded (NaN: it has none)
    double lastX = kNoValue;
    qsizetype visiblePoints = 0;
    qsizetype discardedPoints = 0;
};

// The run's attempts over a series, in attempt order: every job of the run has a segment, even one that
// wrote no point yet. The end comes from what the store keeps of each job (its final state and exit code)
// and of the next one (the checkpoint it resumed from, against the checkpoints this attempt wrote).
QList<AttemptSegment> attemptSegments(const MetricSeries &series, const QList<JobRecord> &jobs,
                                      const QList<CheckpointRecord> &checkpoints);

// Where each attempt after the first began on a series, named after the job that ended before it and why
// ("job 101: wall time"): the boundaries the run view and watch draw. None for a run of one job; an attempt
// with no point yet has no place on the curve.
struct AttemptBoundary {
    double x = 0;
    int endedAttempt = 0; // the attempt that ended there (its log is the one to read)
    QString label;
};
QList<AttemptBoundary> attemptBoundaries(const MetricSeries &series, const QList<JobRecord> &jobs,
                                         const QList<CheckpointRecord> &checkpoints);

} // namespace torchdeck
