#include "core/metrics/logmetrics.h"

namespace torchdeck {

QList<LogPattern> jobLogPatterns(const QStringList &userRegexes)
{
    QList<LogPattern> patterns;
    for (const QString &regex : userRegexes)
        patterns.append({regex, regex, 1});
    return patterns + PatternParser::defaultPatterns();
}

QString userLogPatternProblem(const QStringList &userRegexes)
{
    for (const QString &regex : userRegexes) {
        if (const QString problem = PatternParser::validate({regex, regex, 1}); !problem.isEmpty())
            return problem;
    }
    return {};
}

LogProgress logProgressOf(const RunSeries &series, int attempt)
{
    LogProgress progress;
    const auto highest = [attempt](const MetricSeries &s) {
        qint64 best = 0;
        for (qsizetype row = s.size() - 1; row >= 0 && s.attempt(row) >= attempt; --row) {
            if (s.attempt(row) == attempt)
                best = std::max(best, static_cast<qint64>(s.x(row)));
        }
        return best;
    };
    for (int k = 0; k < kSeriesKindCount; ++k) {
        const auto kind = static_cast<SeriesKind>(k);
        qint64 &into = isByEpoch(kind) ? progress.epoch : progress.step;
        into = std::max(into, highest(series.series(kind)));
    }
    return progress;
}

QList<MetricEvent> firstOfEachRank(const QList<MetricEvent> &events, double readTime, LogProgress *progress)
{
    QList<MetricEvent> kept;
    for (MetricEvent e : events) {
        if (e.kind == MetricEventKind::Epoch) {
            if (e.epoch <= progress->epoch)
                continue;
            progress->epoch = e.epoch;
        } else if (e.kind == MetricEventKind::Step) {
            if (e.step <= progress->step)
                continue;
            progress->step = e.step;
        }
        if (!MetricEvent::has(e.time))
            e.time = readTime;
        kept.append(e);
    }
    return kept;
}

} // namespace torchdeck
