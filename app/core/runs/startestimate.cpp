#include "core/runs/startestimate.h"

#include "core/coretr.h"
#include "core/duration.h"
#include "core/shellquote.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace torchdeck {

namespace {
constexpr qint64 kTieSeconds = 60; // the scheduler's estimates are minutes apart at best
constexpr qsizetype kSaidLimit = 400;

QString lastWords(const QString &text)
{
    QStringList lines = text.split(u'\n', Qt::SkipEmptyParts);
    for (QString &line : lines)
        line = line.trimmed();
    lines.removeAll(QString());
    QString said = lines.join(QStringLiteral("; "));
    if (said.size() > kSaidLimit)
        said = said.left(kSaidLimit) + QStringLiteral("...");
    return said;
}

QString whenFromNow(const QDateTime &start, const QDateTime &now)
{
    const qint64 seconds = now.secsTo(start);
    if (seconds <= kTieSeconds)
        return core::Tr::tr("now");
    return core::Tr::tr("%1 (in %2)")
        .arg(start.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")), formatDuration(double(seconds)));
}

QString briefWhen(const StartEstimate &estimate, const QDateTime &now)
{
    if (estimate.skipped)
        return core::Tr::tr("skipped");
    if (!estimate.start.isValid())
        return core::Tr::tr("unknown");
    const qint64 seconds = now.secsTo(estimate.start);
    return seconds <= kTieSeconds ? core::Tr::tr("now") : core::Tr::tr("in %1").arg(formatDuration(double(seconds)));
}
} // namespace

QString startEstimateCommand(SchedulerKind kind, const QString &script)
{
    if (kind != SchedulerKind::Slurm)
        return {};
    return QStringLiteral("date +%z; printf '%s' %1 | sbatch --test-only 2>&1").arg(shellQuote(script));
}

StartEstimate parseStartEstimate(const QString &cluster, int exitCode, const QByteArray &out)
{
    StartEstimate estimate;
    estimate.cluster = cluster;
    const QString text = QString::fromUtf8(out);
    static const QRegularExpression offsetLine(QStringLiteral("^([+-])(\\d\\d)(\\d\\d)$"),
                                               QRegularExpression::MultilineOption);
    static const QRegularExpression startLine(
        QStringLiteral("^sbatch: Job \\d+ to start at (\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d)\\b.*$"),
        QRegularExpression::MultilineOption);
    const QRegularExpressionMatch offset = offsetLine.match(text);
    const QRegularExpressionMatch start = startLine.match(text);
    if (exitCode != 0 || !start.hasMatch()) {
        estimate.skipped = true;
        QString said = lastWords(QString(text).remove(offsetLine));
        if (said.isEmpty())
            said = core::Tr::tr("sbatch --test-only exited %1 without a word").arg(exitCode);
        estimate.said = exitCode != 0 ? core::Tr::tr("the scheduler refused it: %1").arg(said)
                                      : core::Tr::tr("no start estimate in the scheduler's answer: %1").arg(said);
        return estimate;
    }
    estimate.said = start.captured(0).trimmed();
    int offsetSeconds = 0;
    if (offset.hasMatch()) {
        offsetSeconds = (offset.captured(2).toInt() * 60 + offset.captured(3).toInt()) * 60;
        if (offset.captured(1) == u"-")
            offsetSeconds = -offsetSeconds;
    }
    QDateTime clock = QDateTime::fromString(start.captured(1), Qt::ISODate); // the cluster's wall clock
    clock.setTimeSpec(Qt::UTC);
    estimate.start = clock.addSecs(-offsetSeconds);
    if (!estimate.start.isValid()) {
        estimate.skipped = true;
        estimate.said = core::Tr::tr("no start estimate in the scheduler's answer: %1").arg(estimate.said);
    }
    return estimate;
}

qsizetype soonestStart(const QList<StartEstimate> &estimates)
{
    qsizetype best = -1;
    for (qsizetype i = 0; i < estimates.size(); ++i) {
        const StartEstimate &candidate = estimates.at(i);
        if (candidate.skipped)
            continue;
        if (best < 0) {
            best = i;
            continue;
        }
        const StartEstimate &current = estimates.at(best);
        if (!candidate.known())
            continue; // unknown never beats what is already chosen
        if (!current.known() || candidate.start.secsTo(current.start) > kTieSeconds)
            best = i;
    }
    return best;
}

QString placementJson(const Placement &placement)
{
    QJsonArray estimates;
    for (const StartEstimate &estimate : placement.estimates) {
        QJsonObject object{{QStringLiteral("cluster"), estimate.cluster}, {QStringLiteral("said"), estimate.said}};
        if (estimate.start.isValid())
            object.insert(QStringLiteral("start"), estimate.start.toString(Qt::ISODate));
        if (estimate.skipped)
            object.insert(QStringLiteral("skipped"), true);
        estimates.append(object);
    }
    const QJsonObject object{{QStringLiteral("chosen"), placement.chosen},
                             {QStringLiteral("asked"), placement.asked.toString(Qt::ISODate)},
                             {QStringLiteral("estimates"), estimates}};
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

Placement placementFromJson(const QString &json)
{
    Placement placement;
    const QJsonObject object = QJsonDocument::fromJson(json.toUtf8()).object();
    placement.chosen = object.value(QStringLiteral("chosen")).toString();
    placement.asked = QDateTime::fromString(object.value(QStringLiteral("asked")).toString(), Qt::ISODate).toUTC();
    for (const QJsonValue &value : object.value(QStringLiteral("estimates")).toArray()) {
        const QJsonObject item = value.toObject();
        StartEstimate estimate;
        estimate.cluster = item.value(QStringLiteral("cluster")).toString();
        estimate.said = item.value(QStringLiteral("said")).toString();
        estimate.skipped = item.value(QStringLiteral("skipped")).toBool();
        estimate.start = QDateTime::fromString(item.value(QStringLiteral("start")).toString(), Qt::ISODate).toUTC();
        if (!estimate.cluster.isEmpty())
            placement.estimates.append(estimate);
    }
    return placement;
}

QStringList describeEstimates(const Placement &placement)
{
    const QDateTime &now = placement.asked;
    qsizetype width = 0;
    for (const StartEstimate &estimate : placement.estimates)
        width = std::max(width, estimate.cluster.size());
    QStringList lines;
    for (const StartEstimate &estimate : placement.estimates) {
        QString when;
        if (estimate.skipped)
            when = core::Tr::tr("skipped: %1").arg(estimate.said);
        else if (estimate.start.isValid())
            when = whenFromNow(estimate.start, now);
        else
            when = core::Tr::tr("unknown (%1)").arg(estimate.said);
        if (estimate.cluster == placement.chosen)
            when += core::Tr::tr("   (chosen)");
        lines.append(estimate.cluster.leftJustified(width) + QStringLiteral("   ") + when);
    }
    return lines;
}

QString placementWhy(const Placement &placement)
{
    const QDateTime &now = placement.asked;
    QStringList parts;
    for (const StartEstimate &estimate : placement.estimates)
        parts.append(estimate.cluster + u' ' + briefWhen(estimate, now));
    if (placement.chosen.isEmpty())
        return core::Tr::tr("no candidate could run it: %1").arg(parts.join(QStringLiteral(", ")));
    return core::Tr::tr("chose %1, where it would start soonest: %2")
        .arg(placement.chosen, parts.join(QStringLiteral(", ")));
}

} // namespace torchdeck
