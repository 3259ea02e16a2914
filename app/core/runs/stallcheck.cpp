#include "core/runs/stallcheck.h"

#include "core/coretr.h"
#include "core/duration.h"
#include "core/shellquote.h"

#include <QRegularExpression>
#include <algorithm>

namespace torchdeck {

namespace {
constexpr int kRecentSteps = 20;
constexpr double kPaceFactor = 10;
constexpr double kMinimumSeconds = 60;
constexpr double kMaximumSeconds = 240; // below the trainer's default collective timeout of 300 s
const char kStalled[] = "stalled: ";
} // namespace

StallThreshold stallThreshold(const RunSeries &series, int stallSeconds)
{
    StallThreshold threshold;
    const QList<QPointF> times = series.stepTimes().visiblePoints();
    QList<double> gaps;
    for (qsizetype i = std::max<qsizetype>(1, times.size() - kRecentSteps); i < times.size(); ++i) {
        const double gap = times.at(i).y() - times.at(i - 1).y();
        if (gap >= 0)
            gaps.append(gap);
    }
    if (gaps.size() >= 2) {
        std::sort(gaps.begin(), gaps.end());
        threshold.typicalSeconds = gaps.at(gaps.size() / 2);
    }
    if (stallSeconds > 0)
        threshold.seconds = stallSeconds;
    else if (MetricEvent::has(threshold.typicalSeconds))
        threshold.seconds = std::clamp(kPaceFactor * threshold.typicalSeconds, kMinimumSeconds, kMaximumSeconds);
    return threshold;
}

QString rankHeartbeatCommand(const QString &metricsPath)
{
    // The trainer writes them beside its metrics file; a custom command has none (the loop prints nothing).
    return QStringLiteral("for f in %1.rank*; do [ -f \"$f\" ] && echo \"$f $(cat \"$f\")\"; done; true")
        .arg(shellQuote(metricsPath));
}

QList<RankPhase> parseRankHeartbeats(const QByteArray &output)
{
    static const QRegularExpression line(QStringLiteral(R"(\.rank(\d+) step=(\d+) phase=([a-z]+) time=([0-9.]+))"));
    QList<RankPhase> phases;
    const auto lines = QString::fromUtf8(output).split(u'\n', Qt::SkipEmptyParts);
    for (const QString &text : lines) {
        const QRegularExpressionMatch m = line.match(text);
        if (!m.hasMatch())
            continue;
        phases.append({m.captured(1).toInt(), m.captured(2).toLongLong(), m.captured(3), m.captured(4).toDouble()});
    }
    std::sort(phases.begin(), phases.end(), [](const RankPhase &a, const RankPhase &b) { return a.rank < b.rank; });
    return phases;
}

QString hangingRanks(const QList<RankPhase> &phases)
{
    QList<const RankPhase *> computing;
    bool othersWait = false;
    for (const RankPhase &p : phases) {
        if (p.phase == u"compute")
            computing.append(&p);
        else if (p.phase == u"allreduce")
            othersWait = true;
    }
    if (!computing.isEmpty() && othersWait) {
        QStringList ranks;
        for (const RankPhase *p : std::as_const(computing))
            ranks.append(QString::number(p->rank));
        return computing.size() == 1
                   ? core::Tr::tr("rank %1 is still computing step %2 while the others wait in the all-reduce")
                         .arg(ranks.constFirst())
                         .arg(computing.constFirst()->step)
                   : core::Tr::tr("ranks %1 are still computing while the others wait in the all-reduce")
                         .arg(ranks.join(QStringLiteral(", ")));
    }
    // No rank computes while others wait: the one furthest behind, if one is.
    const auto behind = std::min_element(phases.cbegin(), phases.cend(),
                                         [](const RankPhase &a, const RankPhase &b) { return a.step < b.step; });
    if (behind != phases.cend() &&
        std::any_of(phases.cbegin(), phases.cend(), [&](const RankPhase &p) { return p.step > behind->step; }))
        return core::Tr::tr("rank %1 is behind, at step %2 (%3)")
            .arg(behind->rank)
            .arg(behind->step)
            .arg(behind->phase);
    return {};
}

QString stallMessage(double quietSeconds, const StallThreshold &threshold, const QString &ranks)
{
    QString message =
        QLatin1StringView(kStalled) + core::Tr::tr("no new output for %1").arg(formatDuration(quietSeconds));
    if (MetricEvent::has(threshold.typicalSeconds))
        message += core::Tr::tr(" (a step event every %1 s until then)").arg(threshold.typicalSeconds, 0, 'g', 3);
    if (!ranks.isEmpty())
        message += QStringLiteral("; ") + ranks;
    return message;
}

bool isStallMessage(const QString &message)
{
    return message.startsWith(QLatin1StringView(kStalled));
}

} // namespace torchdeck
