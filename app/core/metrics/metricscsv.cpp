#include "core/metrics/metricscsv.h"

#include "core/metrics/runseries.h"

#include <QStringList>
#include <array>
#include <cmath>

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

QString metricsCsv(const QList<StoredMetricEvent> &events)
{
    const QList<bool> superseded = supersededEvents(events);
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
