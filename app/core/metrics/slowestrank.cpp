#include "core/metrics/slowestrank.h"

#include "core/coretr.h"

#include <algorithm>

namespace torchdeck {

namespace {
QString milliseconds(double seconds)
{
    return seconds < 0.1 ? QStringLiteral("%1 ms").arg(seconds * 1000.0, 0, 'f', 1)
                         : QStringLiteral("%1 s").arg(seconds, 0, 'f', 2);
}
} // namespace

SlowestRank slowestRank(const QList<double> &computeSeconds)
{
    SlowestRank slowest;
    QList<double> known;
    for (qsizetype rank = 0; rank < computeSeconds.size(); ++rank) {
        const double seconds = computeSeconds.at(rank);
        if (!MetricEvent::has(seconds))
            continue;
        known.append(seconds);
        if (!MetricEvent::has(slowest.seconds) || seconds > slowest.seconds) {
            slowest.rank = int(rank);
            slowest.seconds = seconds;
        }
    }
    if (known.size() < 2)
        return {};
    std::sort(known.begin(), known.end());
    const qsizetype mid = known.size() / 2;
    slowest.median = known.size() % 2 ? known.at(mid) : (known.at(mid - 1) + known.at(mid)) / 2.0;
    slowest.ratio = slowest.median > 0 ? slowest.seconds / slowest.median : kNoValue;
    return slowest;
}

QString slowestRankSummary(const SlowestRank &slowest)
{
    if (slowest.rank < 0 || !MetricEvent::has(slowest.ratio))
        return {};
    return core::Tr::tr("slowest rank %1: %2x the median compute per step (%3 vs %4)")
        .arg(slowest.rank)
        .arg(slowest.ratio, 0, 'f', 1)
        .arg(milliseconds(slowest.seconds), milliseconds(slowest.median));
}

} // namespace torchdeck
