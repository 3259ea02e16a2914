#pragma once

// A run's attempts as the tests of what draws them build them: the job of each attempt, its checkpoints and
// the steps it logged. Shared by the tests of the attempts' segments and of watch's attempt markers.
#include "core/metrics/metricseries.h"
#include "core/store/runrecord.h"

namespace torchdeck::testing {

// The job of `attempt` (job id 100 + attempt), ended in `state`, resumed from `resumeFrom`.
inline JobRecord job(int attempt, const char *state, const char *resumeFrom = "", int exitCode = -1)
{
    JobRecord record;
    record.attempt = attempt;
    record.jobId = QString::number(100 + attempt);
    record.state = QString::fromLatin1(state);
    record.resumeFrom = QString::fromLatin1(resumeFrom);
    record.exitCode = exitCode;
    return record;
}

// The checkpoint `attempt` saved at `step` (ckpt-<step>.pt).
inline CheckpointRecord checkpoint(int attempt, qint64 step)
{
    CheckpointRecord record;
    record.attempt = attempt;
    record.step = step;
    record.path = QStringLiteral("ckpt-%1.pt").arg(step);
    return record;
}

// Steps `from`..`to` of `attempt`, with the loss 1 / step.
inline void steps(MetricSeries *series, int attempt, int from, int to)
{
    for (int step = from; step <= to; ++step)
        series->append(step, 1.0 / step, attempt);
}

// Attempt 0 trains steps 1..10 and hits its wall time (latest checkpoint at 6); attempt 1 resumes there and
// trains 7..12; then the user resumes from step 4 and attempt 2 trains 5..8.
inline MetricSeries restartedThenBranched()
{
    MetricSeries series;
    steps(&series, 0, 1, 10);
    series.discardAfter(6);
    steps(&series, 1, 7, 12);
    series.discardAfter(4);
    steps(&series, 2, 5, 8);
    return series;
}

} // namespace torchdeck::testing
