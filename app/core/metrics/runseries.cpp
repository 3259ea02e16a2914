#include "core/metrics/runseries.h"

#include <algorithm>

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

constexpr int kEtaEpochs = 3; // the pace of the latest epochs predicts the next ones

} // namespace

void RunSeriesChanges::merge(const RunSeriesChanges &other)
{
    for (int k = 0; k < kSeriesKindCount; ++k) {
        mergeRows(&appended[k], other.appended[k]);
        mergeRows(&discarded[k], other.discarded[k]);
    }
    checkpoints = checkpoints || other.checkpoints;
    info = info || other.info;
}

bool RunSeriesChanges::isEmpty() const
{
    for (int k = 0; k < kSeriesKindCount; ++k) {
        if (!appended[k].isEmpty() || !discarded[k].isEmpty())
            return false;
    }
    return !checkpoints && !info;
}

void RunSeries::add(SeriesKind kind, double x, double y, int attempt, RunSeriesChanges *changes)
{
    if (!MetricEvent::has(y))
        return;
    MetricSeries &s = at(kind);
    const qsizetype before = s.size();
    mergeRows(&changes->discarded[static_cast<int>(kind)], s.append(x, y, attempt));
    if (s.size() > before)
        mergeRows(&changes->appended[static_cast<int>(kind)], {before, before});
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
    if (MetricEvent::has(e.time)) {
        if (!MetricEvent::has(m_info.firstTime))
            m_info.firstTime = e.time;
        m_info.lastTime = e.time;
    }
    switch (e.kind) {
    case MetricEventKind::Start:
        if (m_info.starts > 0 || !m_checkpoints.isEmpty() ||
            std::any_of(m_series.cbegin(), m_series.cend(), [](const MetricSeries &s) { return !s.isEmpty(); }))
            resume(e, &changes);
        ++m_info.starts;
        if (e.epochs >= 0)
            m_info.epochs = e.epochs;
        if (e.stepsPerEpoch >= 0)
            m_info.stepsPerEpoch = e.stepsPerEpoch;
        m_info.worldSize = e.worldSize;
        m_info.model = e.model;
        m_info.dataset = e.dataset;
        m_info.resumedFrom = e.resumed ? e.resumePath : QString();
        m_info.resumeSkipped = e.resumed ? e.resumeSkipped : 0;
        m_info.startTime = e.time;
        m_info.startStep = e.resumed ? std::max<qint64>(e.resumeStep, 0) : 0;
        m_info.stopped = false;
        changes.info = true;
        break;
    case MetricEventKind::Step: {
        const double x = static_cast<double>(e.step);
        add(SeriesKind::TrainLoss, x, e.loss, attempt, &changes);
        add(SeriesKind::LearningRate, x, e.lr, attempt, &changes);
        add(SeriesKind::Throughput, x, e.samplesPerSecond, attempt, &changes);
        m_info.lastStepTime = e.time;
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
        add(SeriesKind::EpochTrainLoss, x, e.loss, attempt, &changes);
        add(SeriesKind::ValLoss, x, e.valLoss, attempt, &changes);
        add(SeriesKind::ValAccuracy, x, e.valAccuracy, attempt, &changes);
        add(SeriesKind::EpochSeconds, x, e.seconds, attempt, &changes);
        add(SeriesKind::EpochThroughput, x, e.samplesPerSecond, attempt, &changes);
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
        if (p.epochsTotal >= 0)
            p.etaSeconds = static_cast<double>(std::max<qint64>(0, p.epochsTotal - p.epochsDone)) * p.secondsPerEpoch;
    }
    return p;
}

} // namespace torchdeck
