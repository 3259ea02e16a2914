#pragma once

#include "core/metrics/metricevent.h"
#include "core/metrics/metricseries.h"
#include "core/metrics/resourcesample.h"
#include "core/metrics/serieskind.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QStringList>
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
    int starts = 0;                // start events: 1 + resumes and restarts
    QHash<int, int> attemptStarts; // start events by attempt (job): 1 + the times that job requeued itself
    double firstTime = kNoValue;
    double lastTime = kNoValue;
    double startTime = kNoValue;     // the latest start event's: when the current attempt began
    double lastStepTime = kNoValue;  // the latest step event's
    qint64 lastEpochStep = kNoCount; // its step inside the epoch
    qint64 lastStep = kNoCount;      // its global step
    qint64 startStep = kNoCount;     // the global step the current attempt began at (0, or resumed)
    QString resumedFrom;             // the checkpoint the latest start resumed from; empty: a fresh start
    qint64 resumeSkipped = 0;        // newer checkpoints that start rejected as torn or corrupt
    // The latest start that rejected some, kept through the starts after it (a restart from the checkpoint it wrote
    // instead): the run says so to its end (core/runs/runsettlement.cpp).
    QString tornResumedFrom;
    qint64 tornSkipped = 0;
    bool stopped = false; // the latest attempt wrote its stop event
    QString stopReason;
    int exitCode = 0;
    QString stopMessage;
    // The latest step event's per-rank seconds per step (several ranks only): core/metrics/slowestrank.h.
    QList<double> rankComputeSeconds;
    QList<double> rankWaitSeconds;
};

struct RunProgress {
    qint64 epochsDone = 0;
    qint64 epochsTotal = kNoCount;
    qint64 step = kNoCount;
    double lastLoss = kNoValue;
    double secondsPerEpoch = kNoValue; // mean of the latest epochs
    double etaSeconds = kNoValue;      // remaining epochs at that pace
};

// `progress` counted against the run's own epoch total where it knows one (the spec of its latest attempt: a
// resumed run's new count, before that attempt's first metrics say it), the ETA at the same pace; a negative
// total leaves it as it was.
RunProgress againstEpochsTotal(RunProgress progress, qint64 epochsTotal);

// Which rows changed in which series, for the models' signals.
struct RunSeriesChanges {
    std::array<MetricSeries::Rows, kSeriesKindCount> appended;
    std::array<MetricSeries::Rows, kSeriesKindCount> discarded;
    bool extras = false;    // a named extra series changed
    bool resources = false; // a resource sample came
    bool checkpoints = false;
    bool info = false;

    void merge(const RunSeriesChanges &other);
    bool isEmpty() const;
};

// All series of one run, fed with its events in order. Where a series has values from a file (the metrics file,
// the job's TensorBoard or Lightning files), values that log patterns read for it are left out: the log only
// fills the series the files lack (log values stored before the file's first are marked discarded). One run spans many
// attempts (job ids): a start event that resumes from a checkpoint at step S marks the points after S discarded, so the
// visible curve stays one continuous line and nothing is drawn twice.
class RunSeries {
public:
    RunSeriesChanges apply(const MetricEvent &event, int attempt = 0);
    RunSeriesChanges apply(const QList<MetricEvent> &events, int attempt = 0);
    void clear();

    const MetricSeries &series(SeriesKind kind) const { return m_series[static_cast<int>(kind)]; }
    // Named series the run's own logger wrote (NamedValue), by step from step events, by epoch from epoch
    // events; in the order they first came.
    QStringList extraNames(bool byEpoch) const;
    const MetricSeries *extra(const QString &name, bool byEpoch) const;
    // When each step (x: step) and each epoch (x: epoch) was logged: wall-clock Unix seconds as y, for the
    // charts over time. Discarded with the points a resume discards.
    // What the job used over wall time (x: Unix seconds), resourceSeriesValues' names in the order they came,
    // and the latest sample whole.
    QStringList resourceNames() const;
    const MetricSeries *resource(const QString &name) const;
    const ResourceSample &lastResources() const { return m_lastResources; }
    const MetricSeries &stepTimes() const { return m_stepTimes; }
    const MetricSeries &epochTimes() const { return m_epochTimes; }
    const RunInfo &info() const { return m_info; }
    const QList<RunCheckpoint> &checkpoints() const { return m_checkpoints; }
    RunProgress progress() const;
    // How far the log of an attempt has come (whatever values a file's superseded): where reading it on goes
    // on counting, and what the latest epoch and step already gave, so that every rank's repeat of a line
    // counts once. `admit` takes an event of the log in order: false for a repeat, else it keeps only the
    // values its epoch or step has not given yet (a line giving more values of the same epoch, such as a
    // validation line after the training one, adds them).
    struct LogMark {
        qint64 epoch = 0;
        qint64 epochStep = kNoCount; // the step the latest epoch's event came with (-1: none)
        qint64 step = kNoCount;
        QSet<QString> epochFields;
        QSet<QString> stepFields;
        qint64 stepEpoch = kNoCount; // the epoch of the latest step event
        bool lastWasEpoch = false;
        bool epochFromZero = false; // the script counts epochs from 0
        bool admit(MetricEvent *event);
    };
    LogMark logMark(int attempt) const { return m_logMarks.value(attempt); }

private:
    MetricSeries &at(SeriesKind kind) { return m_series[static_cast<int>(kind)]; }
    void add(SeriesKind kind, double x, double y, MetricSource source, int attempt, RunSeriesChanges *changes);
    void addExtras(const MetricEvent &event, double x, bool byEpoch, int attempt, RunSeriesChanges *changes);
    void addResources(const MetricEvent &event, int attempt, RunSeriesChanges *changes);
    // Whether a value from `source` goes into a series: once a file gives it values, the log's give way (what
    // the log gave so far is discarded, its rows merged into `superseded`).
    static bool takesSource(MetricSeries *series, bool *fromFiles, MetricSource source, MetricSeries::Rows *superseded);
    static void addTime(MetricSeries *times, bool *fromFiles, double x, const MetricEvent &event, int attempt);
    void resume(const MetricEvent &start, RunSeriesChanges *changes);

    std::array<MetricSeries, kSeriesKindCount> m_series;
    std::array<bool, kSeriesKindCount> m_fromFiles{}; // has values from a source other than the log
    MetricSeries m_stepTimes;
    MetricSeries m_epochTimes;
    bool m_stepTimesFromFiles = false;
    bool m_epochTimesFromFiles = false;
    struct Extra {
        QString name;
        bool byEpoch = false;
        MetricSeries series;
    };
    QList<Extra> m_extras;
    QList<Extra> m_resources; // byEpoch unused
    ResourceSample m_lastResources;
    QHash<int, LogMark> m_logMarks; // by attempt
    RunInfo m_info;
    QList<RunCheckpoint> m_checkpoints;
};

} // namespace torchdeck
