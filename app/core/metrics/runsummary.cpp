#include "core/metrics/runsummary.h"

namespace torchdeck {

namespace {

struct Extremes {
    double last = kNoValue;
    QPointF best{kNoValue, kNoValue};
};

Extremes extremesOf(const MetricSeries &series, bool lowerIsBetter)
{
    Extremes result;
    for (qsizetype row = 0; row < series.size(); ++row) { // rows, not a copy of the curve: it may be long
        if (series.isDiscarded(row))
            continue;
        const QPointF point(series.x(row), series.y(row));
        result.last = point.y();
        const bool better =
            std::isnan(result.best.y()) || (lowerIsBetter ? point.y() < result.best.y() : point.y() > result.best.y());
        if (better)
            result.best = point;
    }
    return result;
}

} // namespace

RunSummary summarize(const RunSeries &series)
{
    RunSummary summary;
    QPointF last;
    if (series.series(SeriesKind::TrainLoss).lastVisible(&last))
        summary.steps = last.x();
    // Per-step loss when the run logs it, else the per-epoch one (a script that only prints epochs).
    const MetricSeries &stepLoss = series.series(SeriesKind::TrainLoss);
    const Extremes loss = extremesOf(stepLoss.isEmpty() ? series.series(SeriesKind::EpochTrainLoss) : stepLoss, true);
    summary.finalLoss = loss.last;
    summary.bestLoss = loss.best.y();
    const Extremes val = extremesOf(series.series(SeriesKind::ValLoss), true);
    summary.finalValLoss = val.last;
    summary.bestValLoss = val.best.y();
    summary.bestValLossEpoch = val.best.x();
    const Extremes accuracy = extremesOf(series.series(SeriesKind::ValAccuracy), false);
    summary.finalAccuracy = accuracy.last;
    summary.bestAccuracy = accuracy.best.y();
    return summary;
}

} // namespace torchdeck
