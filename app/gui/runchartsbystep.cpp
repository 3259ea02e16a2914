// RunCharts: what the charts by step add to plain curves: smoothing, another x (epoch, time), and the run's
// jobs (boundaries, discarded steps). The charts themselves are in runcharts.cpp.
#include "core/metrics/chartx.h"
#include "core/metrics/smoothing.h"
#include "core/runs/attemptsegments.h"
#include "core/store/runmetrics.h"
#include "gui/runchartaxes.h"
#include "gui/runcharts.h"
#include "gui/runchartticks.h"
#include "gui/runchartview.h"

#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <cmath>

namespace torchdeck {

namespace {
constexpr int maximumDiscardedPoints = 4000; // dimmed context: every n-th beyond that

QList<QPointF> thinned(const QList<QPointF> &points, qsizetype most)
{
    if (points.size() <= most)
        return points;
    QList<QPointF> kept;
    const double stride = double(points.size()) / double(most);
    for (qsizetype i = 0; i < most; ++i)
        kept.append(points.at(qsizetype(double(i) * stride)));
    return kept;
}

} // namespace

void RunCharts::setSmoothing(double weight)
{
    weight = clampSmoothingWeight(weight);
    if (weight == m_smoothing)
        return;
    m_smoothing = weight;
    styleSmoothed();
    redraw();
}

void RunCharts::setChartX(ChartX x, bool closeGaps)
{
    if (x == m_chartX && closeGaps == m_closeGaps)
        return;
    m_chartX = x;
    m_closeGaps = closeGaps;
    const TickLabels labels = x == ChartX::WallTime       ? TickLabels::ClockTimes
                              : x == ChartX::RelativeTime ? TickLabels::Durations
                                                          : TickLabels::Numbers;
    for (RunChartView *view : stepViews())
        setTickLabels(static_cast<QValueAxis *>(axisOf(view->chart(), Qt::Horizontal)), labels);
    resetZoom(); // the old range means nothing on the new axis; redraws
}

StepClock RunCharts::stepClock(const RunSeries &run) const
{
    return StepClock(run.stepTimes(), m_chartX, double(run.info().stepsPerEpoch), m_closeGaps);
}

const MetricSeries *RunCharts::onChartX(const MetricSeries *series, const RunSeries &run,
                                        std::deque<MetricSeries> *keep) const
{
    if (!series || m_chartX == ChartX::Step)
        return series;
    MetricSeries &moved = keep->emplace_back();
    for (const QPointF &point : stepClock(run).map(series->visiblePoints()))
        moved.append(point.x(), point.y(), 0);
    return &moved;
}

void RunCharts::setAttempts(const QList<JobRecord> &jobs, const QList<CheckpointRecord> &checkpoints)
{
    m_jobs = jobs;
    m_checkpoints = checkpoints;
    scheduleRedraw();
}

void RunCharts::drawAttempts()
{
    // Dimmed where x is the step; on a time axis the steps a later job redid have no place of their own.
    m_stepDiscarded->replace(
        m_run && m_chartX == ChartX::Step
            ? thinned(m_run->series(SeriesKind::TrainLoss).discardedPoints(), maximumDiscardedPoints)
            : QList<QPointF>());
    // Where each attempt ended: at the first point of the one after it, labelled with the job that ended.
    const auto markersOf = [this](const MetricSeries &series) {
        QList<ChartMarker> markers;
        for (const AttemptBoundary &boundary : attemptBoundaries(series, m_jobs, m_checkpoints))
            markers.append({boundary.x, boundary.label, boundary.endedAttempt});
        return markers;
    };
    QList<ChartMarker> byStep, byEpoch;
    if (m_run) {
        byStep = markersOf(m_run->series(SeriesKind::TrainLoss));
        const StepClock clock = stepClock(m_run->series());
        for (ChartMarker &marker : byStep)
            marker.x = clock.map(marker.x);
        byStep.removeIf([](const ChartMarker &marker) { return std::isnan(marker.x); });
        const MetricSeries &epochs = m_run->series(SeriesKind::EpochTrainLoss);
        byEpoch = markersOf(epochs.isEmpty() ? m_run->series(SeriesKind::ValLoss) : epochs);
    }
    for (RunChartView *view : stepViews())
        view->setMarkers(byStep);
    for (RunChartView *view : {m_epochView, m_extras[1].view})
        view->setMarkers(byEpoch);
}

QList<QPointF> RunCharts::drawnSmoothed(SeriesKind kind) const
{
    const QLineSeries *line = kind == SeriesKind::TrainLoss    ? m_stepLossSmooth
                              : kind == SeriesKind::Throughput ? m_throughputSmooth
                                                               : nullptr;
    return line && line->isVisible() ? line->points() : QList<QPointF>();
}

QList<QPointF> RunCharts::drawnDiscarded() const
{
    return m_stepDiscarded->points();
}

void RunCharts::styleSmoothed()
{
    QColor dim = activePalette().color(QPalette::WindowText);
    dim.setAlphaF(0.25);
    m_stepDiscarded->setColor(dim);
    m_stepDiscarded->setBorderColor(Qt::transparent);
    for (const auto &[raw, smooth] :
         {std::pair{m_stepLoss, m_stepLossSmooth}, std::pair{m_throughput, m_throughputSmooth}}) {
        // The theme's colour of the curve, kept on the raw line as a property: its pen may be faint now.
        QColor color = raw->property("themeColor").value<QColor>();
        QPen pen = raw->pen();
        pen.setColor(m_smoothing > 0 ? QColor(color.red(), color.green(), color.blue(), 70) : color);
        raw->setPen(pen);
        QPen smoothPen = pen;
        smoothPen.setColor(color);
        smoothPen.setWidthF(pen.widthF() + 0.5);
        smooth->setPen(smoothPen);
    }
}

} // namespace torchdeck
