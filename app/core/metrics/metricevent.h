#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <cmath>
#include <limits>

namespace torchdeck {

// The events of the trainer's JSON Lines contract (docs/metrics-schema.md); plain log lines parsed through
// patterns become Step or Epoch events too. Resources: what the job used, sampled by torchdeck
// (core/metrics/resourcesample.h), not written by the job.
enum class MetricEventKind : quint8 { Start, Step, Epoch, Checkpoint, Stop, Resources };

// Where an event was read: the trainer's or the job's metrics file, a custom command's log (through log
// patterns), files the job's own logger wrote (TensorBoard, Lightning CSV), or torchdeck's samples of the job's
// resource use. Stored: only grows at its end.
enum class MetricSource : quint8 { MetricsFile, Log, LoggerFiles, Resources };

// A value of a series the trainer does not have ("grad_norm", "val_f1"): plotted by step from step events,
// by epoch from epoch events.
struct NamedValue {
    QString name;
    double value = 0;
};
inline bool operator==(const NamedValue &a, const NamedValue &b)
{
    return a.name == b.name && a.value == b.value;
}

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
inline constexpr qint64 kNoCount = -1;

// One event, flat: the fields an event kind does not carry stay NaN / -1 / empty. Doubles written as JSON
// null (the trainer's encoding of non-finite values) read as NaN.
struct MetricEvent {
    MetricEventKind kind = MetricEventKind::Step;
    MetricSource source = MetricSource::MetricsFile;
    int schema = 1;
    double time = kNoValue; // wall clock, Unix seconds

    qint64 epoch = kNoCount;     // 1-based; checkpoint: epochs completed
    qint64 epochs = kNoCount;    // planned total (start, epoch)
    qint64 step = kNoCount;      // global optimizer step
    qint64 epochStep = kNoCount; // step inside the epoch
    qint64 stepsPerEpoch = kNoCount;

    double loss = kNoValue; // step: batch loss; epoch: mean train loss
    double lr = kNoValue;
    double samplesPerSecond = kNoValue;
    double valLoss = kNoValue;
    double valAccuracy = kNoValue;
    double seconds = kNoValue; // epoch: duration; checkpoint: time to save
    QList<NamedValue> extras;  // step, epoch: values of named series of their own
    // step, with several ranks: each rank's mean seconds per step computing and waiting in the gradient
    // all-reduce since the step event before (the trainer's rank_compute_s, rank_wait_s), indexed by rank
    QList<double> rankComputeSeconds;
    QList<double> rankWaitSeconds;
    // Read from a log: the step is counted in the order of its lines (the script prints none), and the script
    // counts epochs from 0 (`epoch` is the printed one + 1).
    bool stepCounted = false;
    bool epochFromZero = false;

    // checkpoint
    QString path;
    qint64 bytes = kNoCount;
    QString reason; // checkpoint: epoch|steps|signal|final; stop: done|signal|error

    // start
    int worldSize = 0;
    QString model;
    QString dataset;
    bool resumed = false; // start: resumed from a checkpoint
    QString resumePath;
    qint64 resumeEpoch = kNoCount;
    qint64 resumeStep = kNoCount;
    qint64 resumeSkipped = 0; // newer checkpoints rejected as torn or corrupt before this one

    // stop
    int exitCode = 0;
    QString signal;
    QString message;

    static bool has(double v) { return !std::isnan(v); }
    static bool has(qint64 v) { return v >= 0; }
};

QString metricEventName(MetricEventKind kind);

// An event with the attempt (job) of the run it came from, as the run store caches them in arrival order.
struct StoredMetricEvent {
    int attempt = 0;
    MetricEvent event;
};

} // namespace torchdeck

Q_DECLARE_METATYPE(torchdeck::MetricEvent)
