#pragma once

#include "core/metrics/metricevent.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace torchdeck {

// What a running job uses, sampled from inside its allocation (core/scheduler/resourceprobe.h): each GPU of
// its nodes and each task (a rank, with the processes it started) on each node.
// How often the agent samples the job of a run some front shows.
inline constexpr int kResourceSampleMs = 10000;

struct GpuUse {
    QString node;
    int index = 0;
    double utilization = kNoValue; // percent
    double memoryUsedMiB = kNoValue;
    double memoryTotalMiB = kNoValue;
};

struct TaskUse {
    QString node;
    QString task;                 // the rank ("0"), or a word where the scheduler gives no rank ("job")
    double cpuSeconds = kNoValue; // used so far, all its processes
    double cpuPercent = kNoValue; // since the sample before (100: one core busy)
    double rssMiB = kNoValue;     // resident memory, all its processes
    double elapsedSeconds = kNoValue;
    int processes = 0;
};

struct ResourceSample {
    double time = kNoValue; // Unix seconds
    QString via;            // where CPU and memory were read: "proc", "sstat", "qstat"
    QList<GpuUse> gpus;
    QList<TaskUse> tasks;

    bool isEmpty() const { return gpus.isEmpty() && tasks.isEmpty(); }
    double cpuPercent() const; // all tasks; NaN when none is known
    double rssMiB() const;
    double gpuUtilization() const; // mean over the GPUs
    double gpuMemoryUsedMiB() const;
    double gpuMemoryTotalMiB() const;
};

// The CPU percent of each task from the sample before (the same node and task), else over its whole life.
void computeCpuPercent(ResourceSample *sample, const ResourceSample &before);

// A sample as a stored event (MetricEventKind::Resources, MetricSource::Resources): its numbers as named
// values "gpu:NODE:INDEX:FIELD" and "task:NODE:TASK:FIELD", `via` in `reason`; and back.
MetricEvent resourceEvent(const ResourceSample &sample);
ResourceSample resourceSampleOf(const MetricEvent &event);

// The series the charts draw over wall time, one value each per sample: "CPU %", "memory GiB", "GPU %",
// "GPU memory GiB", and "GPU NODE:INDEX %" per GPU when there are several.
QList<NamedValue> resourceSeriesValues(const ResourceSample &sample);

// For a person: "GPU 87% 31.2/80.0 GiB (4) · CPU 312% · RSS 12.3 GiB"; empty for an empty sample.
QString resourceSummary(const ResourceSample &sample);
// `status --json`'s "resources".
QJsonObject resourceJson(const ResourceSample &sample);

} // namespace torchdeck
