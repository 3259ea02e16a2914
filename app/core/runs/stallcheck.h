#pragma once

#include "core/metrics/runseries.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace torchdeck {

// The stall alarm: a running job whose metrics file, log and logger files have grown by nothing for longer
// than its threshold. The threshold comes from the run's own pace, so a run logging every second is caught
// within a minute and one logging every few minutes is left alone: 10x the median gap between its latest step
// events, at least 60 s and at most 240 s, so that it fires well before the trainer's collective timeout
// (--timeout, 300 s) kills the job. A run's own setting (JobSpec::stallSeconds, `submit --stall-after`) wins;
// without one and without 3 step events there is no alarm (nothing says what quiet means for it).
struct StallThreshold {
    double seconds = kNoValue;        // NaN: none
    double typicalSeconds = kNoValue; // the run's median gap between step events
};
StallThreshold stallThreshold(const RunSeries &series, int stallSeconds);

// What each rank of the bundled trainer does (its `<metrics file>.rank<N>` heartbeat, trainer/run/
// rank_heartbeat.h), as `for f in METRICS.rank*; do echo "$f $(cat $f)"; done` prints it.
struct RankPhase {
    int rank = -1;
    qint64 step = -1;
    QString phase; // compute, allreduce, eval, checkpoint
    double time = kNoValue;
};
QString rankHeartbeatCommand(const QString &metricsPath);
QList<RankPhase> parseRankHeartbeats(const QByteArray &output);
// Which rank holds the others up: "rank 1 is still computing step 41 while the others wait in the
// all-reduce"; empty when the heartbeats do not single one out.
QString hangingRanks(const QList<RankPhase> &phases);

// The run's message while it stalls: "stalled: no new output for 2m05s (a step every 0.5 s until then); ...".
QString stallMessage(double quietSeconds, const StallThreshold &threshold, const QString &ranks);
bool isStallMessage(const QString &message);

} // namespace torchdeck
