#pragma once

#include "core/metrics/runseries.h"
#include "core/store/runrecord.h"

namespace torchdeck {

// What a tracker pass writes for a run once its jobs were polled: the state of the job that speaks for it
// (speakingJob), its progress from its series, and whether it has ended.
struct RunSettlement {
    QString state;
    bool ended = false;
    qint64 epochsDone = 0;
    qint64 epochsTotal = kNoCount;
    double lastLoss = kNoValue;
    double etaSeconds = kNoValue; // none once ended
};

// specifiedEpochs of the run's spec (its latest attempt's); -1: none, or a spec that cannot be read.
qint64 specifiedEpochs(const RunRecord &run);

// `jobs`: the run's jobs, not empty. The submitted --epochs (specifiedEpochs) wins over the series', which keeps the
// old total until a resumed attempt's start event arrives; the ETA counts against it. Without one, the series' total
// as it says it now. A job a PBS wrapper calls completed is failed when the trainer's stop event says so.
RunSettlement settleRun(const RunRecord &run, const QList<JobRecord> &jobs, const RunProgress &progress,
                        const RunInfo &info);

// The run's message once settled: the trainer's error where it stopped on one, and a warning, added once,
// when it resumed from an older checkpoint than the newest (else the lost steps look like a bug).
QString settledMessage(const QString &message, const RunInfo &info);

} // namespace torchdeck
