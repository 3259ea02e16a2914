#include "core/metrics/runseries.h"

#include <algorithm>
#include <limits>

namespace torchdeck {

namespace {

void mergeRows(MetricSeries::Rows *into, const MetricSeries::Rows &rows)
{
    if (rows.isEmpty())
        return;
    if (into->isEmpty()) {
        *into = rows;
        return;
    }
    into->first = std::min(into->first, rows.first);
    into->last = std::max(into->last, rows.last);
}

// The series a step event and an epoch event add a point to, and the event's field each point's value is.
struct EventSeries {
    SeriesKind kind;
    double MetricEvent::*value;
};
constexpr EventSeries kStepSeries[] = {
    {SeriesKind::TrainLoss, &MetricEvent::loss},
    {SeriesKind::LearningRate, &MetricEvent::lr},
    {SeriesKind::Throughput, &MetricEvent::samplesPerSecond},
};
constexpr EventSeries kEpochSeries[] = {
    {SeriesKind::EpochTrainLoss, &MetricEvent::loss},
    {SeriesKind::ValLoss, &MetricEvent::valLoss},
    {SeriesKind::ValAccuracy, &MetricEvent::valAccuracy},
    {SeriesKind::EpochSeconds, &MetricEvent::seconds},
    {SeriesKind::EpochThroughput, &MetricEvent::samplesPerSecond},
};

constexpr int kEtaEpochs = 3; // the pace of the latest epochs predicts the next ones

// The values an event of a log gives, by name.
QSet<QString> fieldsOf(const MetricEvent &e)
{
    QSet<QString> fields;
    const auto add = [&fields](const char16_t *name, double value) {
        if (MetricEvent::has(value))
            fields.insert(QString::fromUtf16(name));
    };
    add(u"loss", e.loss);
    add(u"lr", e.lr);
    add(u"samples_per_s", e.samplesPerSecond);
    add(u"val_loss", e.valLoss);
    add(u"val_accuracy", e.valAccuracy);
    add(u"seconds", e.seconds);
    for (const NamedValue &extra : e.extras)
        fields.insert(u'.' + extra.name);
    return fields;
}

// Leaves out of `e` the values named in `given`; false when none is left.
bool withoutGiven(MetricEvent *e, const QSet<QString> &given)
{
    const auto drop = [&given](const char16_t *name, double *value) {
        if (given.contains(QString::fromUtf16(name)))
            *value = kNoValue;
    };
    drop(u"loss", &e->loss);
    drop(u"lr", &e->lr);
    drop(u"samples_per_s", &e->samplesPerSecond);
    drop(u"val_loss", &e->valLoss);
    drop(u"val_accuracy", &e->valAccuracy);
    drop(u"seconds", &e->seconds);
    e->extras.removeIf([&given](const NamedValue &extra) { return given.contains(u'.' + extra.name); });
    return !fieldsOf(*e).isEmpty();
}

// One key (an epoch with the step it came with, or a step): a repeat of it gives only what it has not given.
bool admitAt(MetricEvent *e, qint64 *markKey, QSet<QString> *given, qint64 key, bool newer)
{
    if (!newer && key < *markKey)
        return false;
    if (!newer && key == *markKey) {
        if (!withoutGiven(e, *given))
            return false;
        *given += fieldsOf(*e);
        return true;
    }
    *markKey = key;
    *given = fieldsOf(*e);
    return true;
}

} // namespace

bool RunSeries::LogMark::admit(MetricEvent *e)
{
    if (e->kind == MetricEventKind::Epoch) {
        if (e->epoch < epoch)
            return false;
        const bool newer = e->epoch > epoch;
        if (!admitAt(e, &epochStep, &epochFields, e->step, newer))
            return false;
        epoch = e->epoch;
        lastWasEpoch = true;
    } else if (e->kind == MetricEventKind::Step) {
        if (!admitAt(e, &step, &stepFields, e->step, false))
            return false;
        stepEpoch = e->epoch;
        lastWasEpoch = false;
    } else {
        return true;
    }
    epochFromZero = epochFromZero || e->epochFromZero;
    return true;
}

void RunSeriesChanges::merge(const RunSeriesChanges &other)
{
    for (int k = 0; k < kSeriesKindCount; ++k) {
        mergeRows(&appended[k], other.appended[k]);
        mergeRows(&discarded[k], other.discarded[k]);
    }
    extras = extras || other.extras;
    resources = resources || other.resources;
    checkpoints = checkpoints || other.checkpoints;
    info = info || other.info;
}

bool RunSeriesChanges::isEmpty() const
{
    for (int k = 0; k < kSeriesKindCount; ++k) {
        if (!appended[k].isEmpty() || !discarded[k].isEmpty())
            return false;
    }
    return !extras && !resources && !checkpoints && !info;
}

void RunSeries::add(SeriesKind kind, double x, double y, MetricSource source, int attempt, RunSeriesChanges *changes)
{
    if (!MetricEvent::has(y))
        return;
    MetricSeries &s = at(kind);
    if (!takesSource(&s, &m_fromFiles[static_cast<int>(kind)], source, &changes->discarded[static_cast<int>(kind)]))
        return;
    const qsizetype before = s.size();
    mergeRows(&changes->discarded[static_cast<int>(kind)], s.append(x, y, attempt));
    if (s.size() > before)
        mergeRows(&changes->appended[static_cast<int>(kind)], {before, before});
}

bool RunSeries::takesSource(MetricSeries *series, bool *fromFiles, MetricSource source, MetricSeries::Rows *superseded)
{
    if (source == MetricSource::Log && *fromFiles)
        return false;
    if (source != MetricSource::Log && !*fromFiles) {
        *fromFiles = true; // what the log gave for it so far is superseded
        mergeRows(superseded, series->discardAfter(-std::numeric_limits<double>::infinity()));
    }
    return true;
}

void RunSeries::addTime(MetricSeries *times, bool *fromFiles, double x, const MetricEvent &e, int attempt)
{
    MetricSeries::Rows superseded; // the times' rows are nobody's signal
    if (MetricEvent::has(e.time) && takesSource(times, fromFiles, e.source, &superseded))
        times->append(x, e.time, attempt);
}

void RunSeries::addExtras(const MetricEvent &e, double x, bool byEpoch, int attempt, RunSeriesChanges *changes)
{
    for (const NamedValue &value : e.extras) {
        auto it = std::find_if(m_extras.begin(), m_extras.end(), [&value, byEpoch](const Extra &extra) {
            return extra.byEpoch == byEpoch && extra.name == value.name;
        });
        if (it == m_extras.end())
            it = m_extras.insert(m_extras.end(), Extra{value.name, byEpoch, {}});
        it->series.append(x, value.value, attempt);
        changes->extras = true;
    }
}

QStringList RunSeries::extraNames(bool byEpoch) const
{
    QStringList names;
    for (const Extra &extra : m_extras) {
        if (extra.byEpoch == byEpoch)
            names.append(extra.name);
    }
    return names;
}

QStringList RunSeries::resourceNames() const
{
    QStringList names;
    for (const Extra &resource : m_resources)
        names.append(resource.name);
    return names;
}

const MetricSeries *RunSeries::resource(const QString &name) const
{
    for (const Extra &resource : m_resources) {
        if (resource.name == name)
            return &resource.series;
    }
    return nullptr;
}

void RunSeries::addResources(const MetricEvent &e, int attempt, RunSeriesChanges *changes)
{
    ResourceSample sample = resourceSampleOf(e);
    if (!MetricEvent::has(sample.time) ||
        (MetricEvent::has(m_lastResources.time) && sample.time < m_lastResources.time))
        return;
    for (const NamedValue &value : resourceSeriesValues(sample)) {
        auto it = std::find_if(m_resources.begin(), m_resources.end(),
                               [&value](const Extra &resource) { return resource.name == value.name; });
        if (it == m_resources.end())
            it = m_resources.insert(m_resources.end(), Extra{value.name, false, {}});
        it->series.append(sample.time, value.value, attempt);
    }
    m_lastResources = std::move(sample);
    changes->resources = true;
}

const MetricSeries *RunSeries::extra(const QString &name, bool byEpoch) const
{
    for (const Extra &extra : m_extras) {
        if (extra.byEpoch == byEpoch && extra.name == name)
            return &extra.series;
    }
    return nullptr;
}

void RunSeries::resume(const MetricEvent &start, RunSeriesChanges *changes)
{
    // A start without a resume origin restarted from scratch: everything before is superseded.
    qint64 step = 0;
    qint64 epoch = 0;
    if (start.resumed) {
        epoch = std::max<qint64>(start.resumeEpoch, 0);
        step = start.resumeStep;
        if (step < 0 && start.resumeEpoch >= 0 && m_info.stepsPerEpoch > 0)
            step = start.resumeEpoch * m_info.stepsPerEpoch;
    }
    for (int k = 0; k < kSeriesKindCount; ++k) {
        const bool byEpoch = isByEpoch(static_cast<SeriesKind>(k));
        if (!byEpoch && step < 0)
            continue; // resumed from somewhere unknown: leave the step curves alone
        mergeRows(&changes->discarded[k], m_series[k].discardAfter(static_cast<double>(byEpoch ? epoch : step)));
    }
    if (step >= 0)
        m_stepTimes.discardAfter(double(step));
    m_epochTimes.discardAfter(double(epoch));
    for (Extra &extra : m_extras) {
        if (extra.byEpoch || step >= 0)
            changes->extras =
                !extra.series.discardAfter(double(extra.byEpoch ? epoch : step)).isEmpty() || changes->extras;
    }
    for (RunCheckpoint &c : m_checkpoints) {
        if (!c.discarded && step >= 0 && c.step > step) {
            c.discarded = true;
            changes->checkpoints = true;
        }
    }
}

RunSeriesChanges RunSeries::apply(const MetricEvent &e, int attempt)
{
    RunSeriesChanges changes;
    if (e.kind == MetricEventKind::Resources) { // sampled by torchdeck: says nothing of the run's progress
        addResources(e, attempt, &changes);
        return changes;
    }
    if (MetricEvent::has(e.time)) {
        if (!MetricEvent::has(m_info.firstTime))
            m_info.firstTime = e.time;
        m_info.lastTime = e.time;
    }
    if (e.source == MetricSource::Log) {
        MetricEvent admitted = e;
        m_logMarks[attempt].admit(&admitted);
    }
    switch (e.kind) {
    case MetricEventKind::Start:
        if (m_info.starts > 0 || !m_checkpoints.isEmpty() ||
            std::any_of(m_series.cbegin(), m_series.cend(), [](const MetricSeries &s) { return !s.isEmpty(); }))
            resume(e, &changes);
        ++m_info.starts;
        ++m_info.attemptStarts[attempt];
        if (e.epochs >= 0)
            m_info.epochs = e.epochs;
        if (e.stepsPerEpoch >= 0)
            m_info.stepsPerEpoch = e.stepsPerEpoch;
        m_info.worldSize = e.worldSize;
        m_info.model = e.model;
        m_info.dataset = e.dataset;
        m_info.resumedFrom = e.resumed ? e.resumePath : QString();
        m_info.resumeSkipped = e.resumed ? e.resumeSkipped : 0;
        if (e.resumed && e.resumeSkipped > 0) {
            m_info.tornResumedFrom = e.resumePath;
            m_info.tornSkipped = e.resumeSkipped;
        }
        m_info.startTime = e.time;
        m_info.startStep = e.resumed ? std::max<qint64>(e.resumeStep, 0) : 0;
        m_info.stopped = false;
        changes.info = true;
        break;
    case MetricEventKind::Step: {
        const double x = static_cast<double>(e.step);
        for (const EventSeries &series : kStepSeries)
            add(series.kind, x, e.*series.value, e.source, attempt, &changes);
        addExtras(e, x, false, attempt, &changes);
        addTime(&m_stepTimes, &m_stepTimesFromFiles, x, e, attempt);
        m_info.lastStepTime = e.time;
        if (!e.rankComputeSeconds.isEmpty()) {
            m_info.rankComputeSeconds = e.rankComputeSeconds;
            m_info.rankWaitSeconds = e.rankWaitSeconds;
            changes.info = true;
        }
        m_info.lastEpochStep = e.epochStep;
        m_info.lastStep = e.step;
        if (e.stepsPerEpoch > 0 && m_info.stepsPerEpoch != e.stepsPerEpoch) {
            m_info.stepsPerEpoch = e.stepsPerEpoch;
            changes.info = true;
        }
        break;
    }
    case MetricEventKind::Epoch: {
        const double x = static_cast<double>(e.epoch);
        for (const EventSeries &series : kEpochSeries)
            add(series.kind, x, e.*series.value, e.source, attempt, &changes);
        addExtras(e, x, true, attempt, &changes);
        addTime(&m_epochTimes, &m_epochTimesFromFiles, x, e, attempt);
        if (e.epochs >= 0 && m_info.epochs != e.epochs) {
            m_info.epochs = e.epochs;
            changes.info = true;
        }
        break;
    }
    case MetricEventKind::Checkpoint:
        m_checkpoints.append({e.path, e.epoch, e.step, e.bytes, e.seconds, e.time, e.reason, attempt, false});
        changes.checkpoints = true;
        break;
    case MetricEventKind::Stop:
        m_info.stopped = true;
        m_info.stopReason = e.reason;
        m_info.exitCode = e.exitCode;
        m_info.stopMessage = e.message;
        changes.info = true;
        break;
    case MetricEventKind::Resources:
        break; // above
    }
    return changes;
}

RunSeriesChanges RunSeries::apply(const QList<MetricEvent> &events, int attempt)
{
    RunSeriesChanges changes;
    for (const MetricEvent &e : events)
        changes.merge(apply(e, attempt));
    return changes;
}

void RunSeries::clear()
{
    for (MetricSeries &s : m_series)
        s.clear();
    m_fromFiles = {};
    m_stepTimes.clear();
    m_epochTimes.clear();
    m_stepTimesFromFiles = m_epochTimesFromFiles = false;
    m_extras.clear();
    m_resources.clear();
    m_lastResources = {};
    m_logMarks.clear();
    m_info = {};
    m_checkpoints.clear();
}

RunProgress RunSeries::progress() const
{
    RunProgress p;
    p.epochsTotal = m_info.epochs;
    QPointF last;
    for (SeriesKind k : {SeriesKind::EpochTrainLoss, SeriesKind::ValLoss, SeriesKind::EpochSeconds}) {
        if (series(k).lastVisible(&last))
            p.epochsDone = std::max(p.epochsDone, static_cast<qint64>(last.x()));
    }
    if (series(SeriesKind::TrainLoss).lastVisible(&last)) {
        p.step = static_cast<qint64>(last.x());
        p.lastLoss = last.y();
    } else if (series(SeriesKind::EpochTrainLoss).lastVisible(&last)) {
        p.lastLoss = last.y();
    }
    const MetricSeries &seconds = series(SeriesKind::EpochSeconds);
    QList<QPointF> pace = seconds.visiblePoints();
    pace = pace.mid(std::max<qsizetype>(0, pace.size() - kEtaEpochs));
    if (!pace.isEmpty()) {
        double sum = 0;
        for (const QPointF &pt : pace)
            sum += pt.y();
        p.secondsPerEpoch = sum / static_cast<double>(pace.size());
    }
    return againstEpochsTotal(p, p.epochsTotal);
}

RunProgress againstEpochsTotal(RunProgress progress, qint64 epochsTotal)
{
    if (epochsTotal < 0)
        return progress;
    progress.epochsTotal = epochsTotal;
    if (MetricEvent::has(progress.secondsPerEpoch))
        progress.etaSeconds =
            static_cast<double>(std::max<qint64>(0, epochsTotal - progress.epochsDone)) * progress.secondsPerEpoch;
    return progress;
}

} // namespace torchdeck
