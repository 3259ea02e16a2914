#include "core/metrics/metricscsv.h"

#include "core/metrics/runseries.h"

#include <QHash>
#include <QStringList>
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace torchdeck {

namespace {
QString csvNumber(double value)
{
    return std::isfinite(value) ? QString::number(value, 'g', 10) : QString();
}

QString csvCount(qint64 value)
{
    return value >= 0 ? QString::number(value) : QString();
}
} // namespace

QString csvCell(QString text)
{
    // A logger's series name may hold anything: RFC 4180 quoting.
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n') && !text.contains(u'\r'))
        return text;
    return u'"' + text.replace(u'"', QStringLiteral("\"\"")) + u'"';
}

QString metricSourceName(MetricSource source)
{
    switch (source) {
    case MetricSource::MetricsFile:
        return QStringLiteral("metrics_file");
    case MetricSource::Log:
        return QStringLiteral("log");
    case MetricSource::LoggerFiles:
        return QStringLiteral("logger_files");
    case MetricSource::Resources:
        return QStringLiteral("resources");
    }
    return {};
}

QStringList extraNamesOf(const QList<StoredMetricEvent> &events)
{
    QStringList names;
    for (const StoredMetricEvent &stored : events) {
        for (const NamedValue &value : stored.event.extras) {
            if (!names.contains(value.name))
                names.append(value.name);
        }
    }
    return names;
}

QString metricsCsvHeader(const QStringList &extras)
{
    QStringList header{QStringLiteral(
        "attempt,event,time,epoch,step,loss,lr,samples_per_s,val_loss,val_accuracy,seconds,discarded,source")};
    for (const QString &name : extras)
        header.append(csvCell(name));
    return header.join(u',');
}

QString metricsCsvRow(int attempt, const MetricEvent &e, bool discarded, const QStringList &extras)
{
    if (e.kind != MetricEventKind::Step && e.kind != MetricEventKind::Epoch)
        return {};
    QStringList cells{QString::number(attempt),  metricEventName(e.kind),
                      csvNumber(e.time),         csvCount(e.epoch),
                      csvCount(e.step),          csvNumber(e.loss),
                      csvNumber(e.lr),           csvNumber(e.samplesPerSecond),
                      csvNumber(e.valLoss),      csvNumber(e.valAccuracy),
                      csvNumber(e.seconds),      discarded ? QStringLiteral("1") : QStringLiteral("0"),
                      metricSourceName(e.source)};
    for (const QString &name : extras) {
        double value = kNoValue;
        for (const NamedValue &extra : e.extras) {
            if (extra.name == name)
                value = extra.value;
        }
        cells.append(csvNumber(value));
    }
    return cells.join(u',');
}

QList<bool> supersededEvents(const QList<StoredMetricEvent> &events)
{
    // Replays the events through RunSeries and maps the rows of every curve back to the events that added
    // them: an event is superseded once every point it added is discarded.
    QList<int> added(events.size(), 0);
    QList<int> gone(events.size(), 0);
    QList<bool> dropped(events.size(), false); // a log event whose values all gave way to a file's
    RunSeries series;
    std::array<QList<qsizetype>, kSeriesKindCount> owners;
    for (qsizetype i = 0; i < events.size(); ++i) {
        const MetricEvent &event = events.at(i).event;
        const RunSeriesChanges changes = series.apply(event, events.at(i).attempt);
        for (int k = 0; k < kSeriesKindCount; ++k) {
            QList<qsizetype> &owner = owners[k];
            const MetricSeries::Rows &appended = changes.appended[k];
            for (qsizetype row = appended.first; !appended.isEmpty() && row <= appended.last; ++row) {
                owner.append(i);
                ++added[i];
            }
            const MetricSeries::Rows &discarded = changes.discarded[k];
            for (qsizetype row = discarded.first; !discarded.isEmpty() && row <= discarded.last; ++row) {
                if (row < owner.size() && series.series(SeriesKind(k)).isDiscarded(row))
                    ++gone[owner.at(row)];
            }
        }
        const bool hasValues = MetricEvent::has(event.loss) || MetricEvent::has(event.valLoss) ||
                               MetricEvent::has(event.valAccuracy) || MetricEvent::has(event.lr);
        dropped[i] = event.source == MetricSource::Log && added[i] == 0 && hasValues &&
                     (event.kind == MetricEventKind::Step || event.kind == MetricEventKind::Epoch);
    }
    QList<bool> superseded(events.size(), false);
    for (qsizetype i = 0; i < events.size(); ++i)
        superseded[i] = dropped[i] || (added[i] > 0 && gone[i] >= added[i]);
    return superseded;
}

namespace {
// Takes `from`'s values into `into` where it has none; false (and `into` unchanged) where both have one that
// differs.
bool joinValue(double *into, double from)
{
    if (!MetricEvent::has(from) || (MetricEvent::has(*into) && *into == from))
        return true;
    if (MetricEvent::has(*into))
        return false;
    *into = from;
    return true;
}

bool joinCount(qint64 *into, qint64 from)
{
    if (from == kNoCount || *into == from)
        return true;
    if (*into != kNoCount)
        return false;
    *into = from;
    return true;
}

std::optional<MetricEvent> joined(MetricEvent into, const MetricEvent &from)
{
    bool ok = joinValue(&into.loss, from.loss) && joinValue(&into.lr, from.lr) &&
              joinValue(&into.samplesPerSecond, from.samplesPerSecond) && joinValue(&into.valLoss, from.valLoss) &&
              joinValue(&into.valAccuracy, from.valAccuracy) && joinValue(&into.seconds, from.seconds) &&
              joinCount(&into.step, from.step) && joinCount(&into.epochs, from.epochs);
    for (const NamedValue &value : from.extras) {
        if (!ok)
            break;
        const auto same = std::find_if(into.extras.begin(), into.extras.end(),
                                       [&value](const NamedValue &v) { return v.name == value.name; });
        if (same == into.extras.end())
            into.extras.append(value);
        else
            ok = joinValue(&same->value, value.value);
    }
    if (!ok)
        return std::nullopt;
    return into;
}
bool sameValues(const MetricEvent &a, const MetricEvent &b)
{
    const auto same = [](double x, double y) {
        return MetricEvent::has(x) == MetricEvent::has(y) && !(x < y || y < x);
    };
    return same(a.loss, b.loss) && same(a.lr, b.lr) && same(a.samplesPerSecond, b.samplesPerSecond) &&
           same(a.valLoss, b.valLoss) && same(a.valAccuracy, b.valAccuracy) && same(a.seconds, b.seconds) &&
           a.step == b.step && a.extras.size() == b.extras.size();
}
} // namespace

QList<StoredMetricEvent> joinedEpochRows(const QList<StoredMetricEvent> &events, const QList<bool> &apart,
                                         QList<bool> *rowsApart)
{
    QList<StoredMetricEvent> rows;
    QList<bool> flags;
    rows.reserve(events.size());
    QHash<QPair<int, int>, qsizetype> lastEpochRow; // (attempt, source): its latest epoch row, while no step follows
    for (qsizetype i = 0; i < events.size(); ++i) {
        const StoredMetricEvent &stored = events.at(i);
        const MetricEvent &e = stored.event;
        const bool flag = i < apart.size() && apart.at(i);
        const QPair<int, int> key{stored.attempt, int(e.source)};
        if (e.kind == MetricEventKind::Step)
            lastEpochRow.remove(key);
        if (e.kind == MetricEventKind::Epoch) {
            const auto last = lastEpochRow.constFind(key);
            if (last != lastEpochRow.cend() && rows.at(*last).event.epoch == e.epoch && e.epoch != kNoCount) {
                const std::optional<MetricEvent> both = joined(rows.at(*last).event, e);
                // A row superseded only by this one (each of its values is this one's too) joins it as well.
                if (both && (flags.at(*last) == flag || (!flag && sameValues(*both, e)))) {
                    rows[*last].event = *both;
                    flags[*last] = flag;
                    continue;
                }
            }
            lastEpochRow.insert(key, rows.size());
        }
        rows.append(stored);
        flags.append(flag);
    }
    if (rowsApart)
        *rowsApart = flags;
    return rows;
}

QString metricsCsv(const QList<StoredMetricEvent> &allEvents)
{
    QList<bool> superseded;
    const QList<StoredMetricEvent> events = joinedEpochRows(allEvents, supersededEvents(allEvents), &superseded);
    const QStringList extras = extraNamesOf(events);
    QString text = metricsCsvHeader(extras) + u'\n';
    for (qsizetype i = 0; i < events.size(); ++i) {
        const QString row = metricsCsvRow(events.at(i).attempt, events.at(i).event, superseded.at(i), extras);
        if (!row.isEmpty())
            text += row + u'\n';
    }
    return text;
}

} // namespace torchdeck
