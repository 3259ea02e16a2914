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
    const RunSeries::LogMark mark = series.logMark(attempt);
    return {mark.epoch, mark.step};
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
