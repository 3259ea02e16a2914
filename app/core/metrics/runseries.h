#pragma once

#include "core/metrics/metricevent.h"
#include "core/metrics/metricseries.h"
#include "core/metrics/serieskind.h"

#include <QList>
#include <array>

namespace torchdeck {

struct RunCheckpoint {
    QString path;
    qint64 epoch = kNoCount;
    qint64 step = kNoCount;
    qint64 bytes = kNoCount;
    double seconds = kNoValue;
    double time = kNoValue;
    QString reason;
    int attempt = 0;
    bool discarded = false; // written by an attempt after the step a later attempt resumed from
};

// What start and stop events said.
struct RunInfo {
    qint64 epochs = kNoCount;
    qint64 stepsPerEpoch = kNoCount;
    int worldSize = 0;
    QString model;
    QString dataset;
    int starts = 0; // start events: 1 + resumes and restarts
    double firstTime = kNoValue;
    double lastTime = kNoValue;
    double startTime = kNoValue;     // the latest start event's: when the current attempt began
    double lastStepTime = kNoValue;  // the latest step event's
    qint64 lastEpochStep = kNoCount; // its step inside the epoch
    qint64 lastStep = kNoCount;      // its global step
    qint64 startStep = kNoCount;     // the global step the current attempt began at (0, or resumed)
    QString resumedFrom;             // the checkpoint the latest start resumed from; empty: a fresh start
    qint64 resumeSkipped = 0;        // newer checkpoints that start rejected as torn or corrupt
    bool stopped = false;            // the latest attempt wrote its stop event
    QString stopReason;
    int exitCode = 0;
    QString stopMessage;
};

struct RunProgress {
    qint64 epochsDone = 0;
    qint64 epochsTotal = kNoCount;
    qint64 step = kNoCount;
    double lastLoss = kNoValue;
    double secondsPerEpoch = kNoValue; // mean of the latest epochs
    double etaSeconds = kNoValue;      // remaining epochs at that pace
};

// Which rows changed in which series, for the models' signals.
struct RunSeriesChanges {
    std::array<MetricSeries::Rows, kSeriesKindCount> appended;
    std::array<MetricSeries::Rows, kSeriesKindCount> discarded;
    bool checkpoints = false;
    bool info = false;

    void merge(const RunSeriesChanges &other);
    bool isEmpty() const;
};

// All series of one run, fed with its events in order. One run spans many attempts (job ids): a start event
// that resumes from a checkpoint at step S marks the points after S discarded, so the visible curve stays
// one continuous line and nothing is drawn twice.
class RunSeries {
public:
    RunSeriesChanges apply(const MetricEvent &event, int attempt = 0);
    RunSeriesChanges apply(const QList<MetricEvent> &events, int attempt = 0);
    void clear();

    const MetricSeries &series(SeriesKind kind) const { return m_series[static_cast<int>(kind)]; }
    const RunInfo &info() const { return m_info; }
    const QList<RunCheckpoint> &checkpoints() const { return m_checkpoints; }
    RunProgress progress() const;

private:
    MetricSeries &at(SeriesKind kind) { return m_series[static_cast<int>(kind)]; }
    void add(SeriesKind kind, double x, double y, int attempt, RunSeriesChanges *changes);
    void resume(const MetricEvent &start, RunSeriesChanges *changes);

    std::array<MetricSeries, kSeriesKindCount> m_series;
    RunInfo m_info;
    QList<RunCheckpoint> m_checkpoints;
};

} // namespace torchdeck
