#include "core/metrics/resourcesample.h"

#include "core/coretr.h"

#include <QJsonArray>
#include <QStringList>
#include <cmath>

namespace torchdeck {

namespace {

constexpr double kMiBPerGiB = 1024.0;

// The sum of the known values; NaN when none is known.
template <typename T> double knownSum(const QList<T> &items, double T::*field)
{
    double sum = 0;
    bool any = false;
    for (const T &item : items) {
        if (MetricEvent::has(item.*field)) {
            sum += item.*field;
            any = true;
        }
    }
    return any ? sum : kNoValue;
}

QJsonValue jsonNumber(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue();
}

QString key(const QString &kind, const QString &node, const QString &item, const char *field)
{
    return kind + u':' + node + u':' + item + u':' + QLatin1StringView(field);
}

} // namespace

double ResourceSample::cpuPercent() const
{
    return knownSum(tasks, &TaskUse::cpuPercent);
}

double ResourceSample::rssMiB() const
{
    return knownSum(tasks, &TaskUse::rssMiB);
}

double ResourceSample::gpuUtilization() const
{
    const double sum = knownSum(gpus, &GpuUse::utilization);
    return MetricEvent::has(sum) ? sum / double(gpus.size()) : kNoValue;
}

double ResourceSample::gpuMemoryUsedMiB() const
{
    return knownSum(gpus, &GpuUse::memoryUsedMiB);
}

double ResourceSample::gpuMemoryTotalMiB() const
{
    return knownSum(gpus, &GpuUse::memoryTotalMiB);
}

void computeCpuPercent(ResourceSample *sample, const ResourceSample &before)
{
    for (TaskUse &task : sample->tasks) {
        if (MetricEvent::has(task.cpuPercent) || !MetricEvent::has(task.cpuSeconds))
            continue;
        for (const TaskUse &earlier : before.tasks) {
            if (earlier.node != task.node || earlier.task != task.task || !MetricEvent::has(earlier.cpuSeconds))
                continue;
            const double seconds = sample->time - before.time;
            // A task whose processes changed (one ended) can report less than before: no rate from that.
            if (seconds > 0 && task.cpuSeconds >= earlier.cpuSeconds)
                task.cpuPercent = 100.0 * (task.cpuSeconds - earlier.cpuSeconds) / seconds;
        }
        if (!MetricEvent::has(task.cpuPercent) && task.elapsedSeconds > 0)
            task.cpuPercent = 100.0 * task.cpuSeconds / task.elapsedSeconds;
    }
}

MetricEvent resourceEvent(const ResourceSample &sample)
{
    MetricEvent event;
    event.kind = MetricEventKind::Resources;
    event.source = MetricSource::Resources;
    event.time = sample.time;
    event.reason = sample.via;
    auto put = [&event](const QString &name, double value) {
        if (MetricEvent::has(value))
            event.extras.append({name, value});
    };
    for (const GpuUse &gpu : sample.gpus) {
        const QString index = QString::number(gpu.index);
        put(key(QStringLiteral("gpu"), gpu.node, index, "util"), gpu.utilization);
        put(key(QStringLiteral("gpu"), gpu.node, index, "mem"), gpu.memoryUsedMiB);
        put(key(QStringLiteral("gpu"), gpu.node, index, "mem_total"), gpu.memoryTotalMiB);
    }
    for (const TaskUse &task : sample.tasks) {
        put(key(QStringLiteral("task"), task.node, task.task, "cpu"), task.cpuPercent);
        put(key(QStringLiteral("task"), task.node, task.task, "cpu_s"), task.cpuSeconds);
        put(key(QStringLiteral("task"), task.node, task.task, "rss"), task.rssMiB);
        put(key(QStringLiteral("task"), task.node, task.task, "elapsed"), task.elapsedSeconds);
        put(key(QStringLiteral("task"), task.node, task.task, "procs"), task.processes);
    }
    return event;
}

ResourceSample resourceSampleOf(const MetricEvent &event)
{
    ResourceSample sample;
    sample.time = event.time;
    sample.via = event.reason;
    for (const NamedValue &value : event.extras) {
        // kind:node:item:field, the node being all between the first and the last two colons.
        const QStringList parts = value.name.split(u':');
        if (parts.size() < 4)
            continue;
        const QString &kind = parts.constFirst();
        const QString &field = parts.constLast();
        const QString &item = parts.at(parts.size() - 2);
        const QString node = parts.mid(1, parts.size() - 3).join(u':');
        if (kind == u"gpu") {
            auto it = std::find_if(sample.gpus.begin(), sample.gpus.end(),
                                   [&](const GpuUse &g) { return g.node == node && QString::number(g.index) == item; });
            if (it == sample.gpus.end())
                it = sample.gpus.insert(sample.gpus.end(), GpuUse{node, item.toInt(), kNoValue, kNoValue, kNoValue});
            if (field == u"util")
                it->utilization = value.value;
            else if (field == u"mem")
                it->memoryUsedMiB = value.value;
            else if (field == u"mem_total")
                it->memoryTotalMiB = value.value;
        } else if (kind == u"task") {
            auto it = std::find_if(sample.tasks.begin(), sample.tasks.end(),
                                   [&](const TaskUse &t) { return t.node == node && t.task == item; });
            if (it == sample.tasks.end()) {
                TaskUse task;
                task.node = node;
                task.task = item;
                it = sample.tasks.insert(sample.tasks.end(), task);
            }
            if (field == u"cpu")
                it->cpuPercent = value.value;
            else if (field == u"cpu_s")
                it->cpuSeconds = value.value;
            else if (field == u"rss")
                it->rssMiB = value.value;
            else if (field == u"elapsed")
                it->elapsedSeconds = value.value;
            else if (field == u"procs")
                it->processes = int(value.value);
        }
    }
    return sample;
}

QList<NamedValue> resourceSeriesValues(const ResourceSample &sample)
{
    QList<NamedValue> values;
    auto put = [&values](const QString &name, double value) {
        if (MetricEvent::has(value))
            values.append({name, value});
    };
    put(QStringLiteral("CPU %"), sample.cpuPercent());
    const double rss = sample.rssMiB();
    put(QStringLiteral("memory GiB"), MetricEvent::has(rss) ? rss / kMiBPerGiB : kNoValue);
    put(QStringLiteral("GPU %"), sample.gpuUtilization());
    const double gpuMemory = sample.gpuMemoryUsedMiB();
    put(QStringLiteral("GPU memory GiB"), MetricEvent::has(gpuMemory) ? gpuMemory / kMiBPerGiB : kNoValue);
    if (sample.gpus.size() > 1) {
        for (const GpuUse &gpu : sample.gpus)
            put(QStringLiteral("GPU %1:%2 %").arg(gpu.node).arg(gpu.index), gpu.utilization);
    }
    return values;
}

QString resourceSummary(const ResourceSample &sample)
{
    QStringList parts;
    if (!sample.gpus.isEmpty()) {
        const double util = sample.gpuUtilization();
        const double used = sample.gpuMemoryUsedMiB();
        const double total = sample.gpuMemoryTotalMiB();
        QString gpu =
            core::Tr::tr("GPU %1%").arg(MetricEvent::has(util) ? QString::number(util, 'f', 0) : QStringLiteral("?"));
        if (MetricEvent::has(used) && MetricEvent::has(total))
            gpu += QStringLiteral(" %1/%2 GiB").arg(used / kMiBPerGiB, 0, 'f', 1).arg(total / kMiBPerGiB, 0, 'f', 1);
        if (sample.gpus.size() > 1)
            gpu += QStringLiteral(" (%1)").arg(sample.gpus.size());
        parts.append(gpu);
    }
    const double cpu = sample.cpuPercent();
    if (MetricEvent::has(cpu))
        parts.append(core::Tr::tr("CPU %1%").arg(cpu, 0, 'f', 0));
    const double rss = sample.rssMiB();
    if (MetricEvent::has(rss))
        parts.append(core::Tr::tr("RSS %1 GiB").arg(rss / kMiBPerGiB, 0, 'f', rss < kMiBPerGiB ? 2 : 1));
    if (!sample.tasks.isEmpty())
        parts.append(sample.tasks.size() == 1 ? core::Tr::tr("1 task")
                                              : core::Tr::tr("%1 tasks").arg(sample.tasks.size()));
    return parts.join(QStringLiteral(" · "));
}

QJsonObject resourceJson(const ResourceSample &sample)
{
    QJsonArray gpus;
    for (const GpuUse &gpu : sample.gpus)
        gpus.append(QJsonObject{{QStringLiteral("node"), gpu.node},
                                {QStringLiteral("index"), gpu.index},
                                {QStringLiteral("utilization"), jsonNumber(gpu.utilization)},
                                {QStringLiteral("memory_used_mib"), jsonNumber(gpu.memoryUsedMiB)},
                                {QStringLiteral("memory_total_mib"), jsonNumber(gpu.memoryTotalMiB)}});
    QJsonArray tasks;
    for (const TaskUse &task : sample.tasks)
        tasks.append(QJsonObject{{QStringLiteral("node"), task.node},
                                 {QStringLiteral("task"), task.task},
                                 {QStringLiteral("cpu_percent"), jsonNumber(task.cpuPercent)},
                                 {QStringLiteral("cpu_seconds"), jsonNumber(task.cpuSeconds)},
                                 {QStringLiteral("rss_mib"), jsonNumber(task.rssMiB)},
                                 {QStringLiteral("processes"), task.processes}});
    return QJsonObject{{QStringLiteral("time"), jsonNumber(sample.time)},
                       {QStringLiteral("via"), sample.via},
                       {QStringLiteral("cpu_percent"), jsonNumber(sample.cpuPercent())},
                       {QStringLiteral("rss_mib"), jsonNumber(sample.rssMiB())},
                       {QStringLiteral("gpu_utilization"), jsonNumber(sample.gpuUtilization())},
                       {QStringLiteral("gpu_memory_used_mib"), jsonNumber(sample.gpuMemoryUsedMiB())},
                       {QStringLiteral("gpus"), gpus},
                       {QStringLiteral("tasks"), tasks},
                       {QStringLiteral("summary"), resourceSummary(sample)}};
}

} // namespace torchdeck
