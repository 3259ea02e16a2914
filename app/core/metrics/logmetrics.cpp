#include "core/metrics/logmetrics.h"

#include "core/coretr.h"

#include <algorithm>

namespace torchdeck {

QList<LogPattern> jobLogPatterns(const QStringList &userRegexes)
{
    QList<LogPattern> patterns;
    for (const QString &regex : userRegexes)
        patterns.append({regex, regex});
    return patterns + PatternParser::defaultPatterns();
}

QString userLogPatternProblem(const QStringList &userRegexes)
{
    for (const QString &regex : userRegexes) {
        if (QString problem = PatternParser::validate({regex, regex}); !problem.isEmpty())
            return problem;
    }
    return {};
}

QStringList contextPatternNotes(const QStringList &userRegexes)
{
    QStringList notes;
    for (const QString &regex : userRegexes) {
        const LogPattern pattern{regex, regex};
        if (!PatternParser::validate(pattern).isEmpty() || !PatternParser::isContextPattern(pattern))
            continue;
        QStringList groups = QRegularExpression(regex).namedCaptureGroups();
        groups.removeAll(QString());
        notes.append(core::Tr::tr("pattern \"%1\" is a context pattern: what it reads (%2) places the lines "
                                  "after it, until the next line it reads")
                         .arg(regex, groups.join(QStringLiteral(", "))));
    }
    return notes;
}

LogProgress logProgressOf(const RunSeries &series, int attempt)
{
    return series.logMark(attempt);
}

void resumeLogParser(PatternParser *parser, const LogProgress &progress)
{
    parser->setImplicitStep(std::max<qint64>(progress.step, 0));
    const qint64 epoch = progress.lastWasEpoch || progress.stepEpoch < 1 ? progress.epoch + 1 : progress.stepEpoch;
    parser->setHeaderEpoch(epoch);
    parser->setEpochFromZero(progress.epochFromZero);
}

QList<MetricEvent> firstOfEachRank(const QList<MetricEvent> &events, double readTime, LogProgress *progress)
{
    QList<MetricEvent> kept;
    for (MetricEvent e : events) {
        if (!progress->admit(&e))
            continue;
        if (!MetricEvent::has(e.time))
            e.time = readTime;
        kept.append(e);
    }
    return kept;
}

} // namespace torchdeck
