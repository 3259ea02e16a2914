#pragma once

#include "core/metrics/metricevent.h"
#include "core/metrics/runseries.h"
#include "term/render/linechart.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck::term {

// One line of the runs table.
struct WatchRunRow {
    QString id; // short run id
    QString name;
    QString cluster;
    QString state; // "RUNNING", "PENDING", ...
    qint64 epochsDone = 0;
    qint64 epochsTotal = kNoCount;
    double lastLoss = kNoValue;
    double etaSeconds = kNoValue;
    QStringList jobIds; // one per attempt, oldest first
    QString why{};      // why it waits or how it ended (core/runs/jobscheduling.h), empty: nothing to say
    // While its job runs: seconds to the next checkpoint and to the warning signal (or wall time's end).
    double nextCheckpointIn = kNoValue;
    double signalIn = kNoValue;
    QString resources{};   // while its job runs and is sampled: resourceSummary (core/metrics/resourcesample.h)
    QString slowestRank{}; // several ranks: slowestRankSummary (core/metrics/slowestrank.h)
};

// Everything one frame of `torchdeck watch` shows; the event loop fills it, the renderer only reads it.
struct WatchSnapshot {
    QList<WatchRunRow> runs;
    int selected = -1;                 // index into runs, -1: none
    const RunSeries *series = nullptr; // the selected run's series; null while not loaded
    QStringList logLines;              // the selected run's last log lines, oldest first
    QString helpLine;                  // "↑↓ select  c cancel  r resume  q quit"
    QString message;                   // a question ("Cancel run X? y/n") or an error; empty: none
    bool messageIsError = false;
    bool logScale = false; // loss on a log scale
    double smoothing = 0;  // the train loss's smoothing weight, 0: raw only
    // Where each later attempt of the selected run began, by step and by epoch (the loss chart's two x axes).
    QList<ChartMarker> attemptsByStep;
    QList<ChartMarker> attemptsByEpoch;
    bool useColor = true; // false with NO_COLOR: attributes only
};

} // namespace torchdeck::term
