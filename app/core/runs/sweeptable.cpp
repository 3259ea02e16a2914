#include "core/runs/sweeptable.h"

#include "core/metrics/metricscsv.h"
#include "core/metrics/runsummary.h"

#include <QStringList>
#include <algorithm>
#include <cmath>

namespace torchdeck {

namespace {
QList<double> visibleValues(const MetricSeries &series)
{
    QList<double> values;
    for (const QPointF &point : series.visiblePoints())
        values.append(point.y());
    return values;
}

double mean(const QList<double> &values)
{
    if (values.isEmpty())
        return kNoValue;
    double sum = 0;
    for (const double value : values)
        sum += value;
    return sum / double(values.size());
}

QString number(double value, int decimals)
{
    return std::isnan(value) ? QString() : QString::number(value, 'f', decimals);
}

// Three significant digits, zeros kept (8.00, 0.0487, 123): an epoch of milliseconds reads as well as one of minutes.
QString seconds(double value)
{
    if (std::isnan(value) || value <= 0)
        return number(value, 2);
    return number(value, std::clamp(2 - int(std::floor(std::log10(value))), 0, 4));
}

QString loss(double value)
{
    return std::isnan(value) ? QString() : QString::number(value, 'g', 4);
}

// The varied settings' columns, but nodes: a column of its own.
bool ownColumn(const QString &varied)
{
    return varied != u"nodes";
}

} // namespace

QStringList sweepTableHeader(const QList<SweepRow> &rows)
{
    QStringList columns;
    if (!rows.isEmpty()) {
        for (const auto &[name, value] : rows.first().varied) {
            if (ownColumn(name))
                columns.append(name);
        }
    }
    columns << QStringLiteral("nodes") << QStringLiteral("ranks") << QStringLiteral("s/epoch")
            << QStringLiteral("samples/s") << QStringLiteral("speedup") << QStringLiteral("efficiency")
            << QStringLiteral("train loss") << QStringLiteral("val loss") << QStringLiteral("state")
            << QStringLiteral("run");
    return columns;
}

QStringList sweepTableCells(const SweepRow &row)
{
    QStringList out;
    for (const auto &[name, value] : row.varied) {
        if (ownColumn(name))
            out.append(value);
    }
    out << QString::number(row.nodes) << QString::number(row.ranks) << seconds(row.secondsPerEpoch)
        << number(row.samplesPerSecond, 0) << number(row.speedup, 2) << number(row.efficiency, 2)
        << loss(row.finalTrainLoss) << loss(row.finalValLoss) << row.state << row.runId.left(8);
    return out;
}

SweepRow sweepRowOf(const RunRecord &run, const QList<JobRecord> &jobs, const RunSeries &series,
                    const QList<std::pair<QString, QString>> &varied)
{
    SweepRow row;
    row.runId = run.id;
    row.name = run.name;
    row.state = run.state;
    row.jobId = jobs.isEmpty() ? QString() : jobs.last().jobId;
    row.varied = varied;
    const JobSpec::FromJson spec = run.spec();
    if (spec.ok()) {
        row.nodes = spec.spec.nodes;
        row.ranks = spec.spec.nodes * spec.spec.tasksPerNode;
    }
    if (series.info().worldSize > 0)
        row.ranks = series.info().worldSize;
    row.secondsPerEpoch = steadyMean(visibleValues(series.series(SeriesKind::EpochSeconds)));
    row.samplesPerSecond = steadyMean(visibleValues(series.series(SeriesKind::EpochThroughput)));
    const RunSummary summary = summarize(series);
    row.finalTrainLoss = summary.finalLoss;
    row.finalValLoss = summary.finalValLoss;
    row.bestValLoss = summary.bestValLoss;
    return row;
}

double steadyMean(const QList<double> &perEpoch)
{
    return perEpoch.size() > 1 ? mean(perEpoch.mid(1)) : mean(perEpoch);
}

void fillSpeedups(QList<SweepRow> &rows)
{
    const auto timed = [](const SweepRow &row) {
        return !std::isnan(row.secondsPerEpoch) && row.secondsPerEpoch > 0 && row.ranks > 0;
    };
    const SweepRow *base = nullptr;
    for (const SweepRow &row : std::as_const(rows)) {
        if (!timed(row))
            continue;
        if (!base || row.ranks < base->ranks || (row.ranks == base->ranks && row.nodes < base->nodes))
            base = &row;
    }
    if (!base)
        return;
    const double baseSeconds = base->secondsPerEpoch;
    const int baseRanks = base->ranks;
    for (SweepRow &row : rows) {
        if (!timed(row))
            continue;
        row.speedup = baseSeconds / row.secondsPerEpoch;
        row.efficiency = row.speedup / (double(row.ranks) / double(baseRanks));
    }
}

void sortSweepRows(QList<SweepRow> &rows, bool scaling)
{
    std::stable_sort(rows.begin(), rows.end(), [scaling](const SweepRow &a, const SweepRow &b) {
        if (scaling)
            return a.ranks != b.ranks ? a.ranks < b.ranks : a.nodes < b.nodes;
        if (std::isnan(a.bestValLoss) || std::isnan(b.bestValLoss))
            return !std::isnan(a.bestValLoss) && std::isnan(b.bestValLoss);
        return a.bestValLoss < b.bestValLoss;
    });
}

QString sweepMarkdown(const QList<SweepRow> &rows)
{
    const QStringList columns = sweepTableHeader(rows);
    QString text = QStringLiteral("| ") + columns.join(QStringLiteral(" | ")) + QStringLiteral(" |\n|");
    for (qsizetype i = 0; i < columns.size(); ++i)
        text += QStringLiteral("---|");
    text += u'\n';
    for (const SweepRow &row : rows) {
        QStringList values = sweepTableCells(row);
        for (QString &value : values)
            value.replace(u'|', QStringLiteral("\\|"));
        text += QStringLiteral("| ") + values.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    }
    return text;
}

QString sweepCsv(const QList<SweepRow> &rows)
{
    QStringList lines;
    QStringList columns = sweepTableHeader(rows);
    columns.last() = QStringLiteral("run"); // the whole id: CSV is read by programs
    for (QString &column : columns)
        column = csvCell(column);
    lines.append(columns.join(u','));
    for (const SweepRow &row : rows) {
        QStringList values = sweepTableCells(row);
        values.last() = row.runId;
        for (QString &value : values)
            value = csvCell(value);
        lines.append(values.join(u','));
    }
    return lines.join(u'\n') + u'\n';
}

QJsonObject sweepRowToJson(const SweepRow &row)
{
    const auto value = [](double v) { return std::isnan(v) ? QJsonValue() : QJsonValue(v); };
    QJsonObject varied;
    for (const auto &[name, text] : row.varied)
        varied.insert(name, text);
    return {{QStringLiteral("run"), row.runId},
            {QStringLiteral("name"), row.name},
            {QStringLiteral("state"), row.state},
            {QStringLiteral("job"), row.jobId},
            {QStringLiteral("varied"), varied},
            {QStringLiteral("nodes"), row.nodes},
            {QStringLiteral("ranks"), row.ranks},
            {QStringLiteral("seconds_per_epoch"), value(row.secondsPerEpoch)},
            {QStringLiteral("samples_per_second"), value(row.samplesPerSecond)},
            {QStringLiteral("speedup"), value(row.speedup)},
            {QStringLiteral("efficiency"), value(row.efficiency)},
            {QStringLiteral("final_train_loss"), value(row.finalTrainLoss)},
            {QStringLiteral("final_val_loss"), value(row.finalValLoss)},
            {QStringLiteral("best_val_loss"), value(row.bestValLoss)}};
}

} // namespace torchdeck
