#include "core/runs/sweeptable.h"

#include "core/metrics/metricscsv.h"
#include "core/metrics/runsummary.h"
#include "core/store/runstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <iterator>

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
    const QString time = seconds(row.secondsPerEpoch) + (row.timedByJob ? QStringLiteral(" (job)") : QString());
    out << QString::number(row.nodes) << QString::number(row.ranks) << time << number(row.samplesPerSecond, 0)
        << number(row.speedup, 2) << number(row.efficiency, 2) << loss(row.finalTrainLoss) << loss(row.finalValLoss)
        << row.state << row.runId.left(8);
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
    if (std::isnan(row.secondsPerEpoch)) {
        // No epoch times (a command that logs none): how long its jobs ran, as the scheduler said, once ended.
        qint64 elapsed = 0;
        bool said = false;
        for (const JobRecord &job : jobs) {
            if (job.scheduling.elapsedSeconds >= 0) {
                elapsed += job.scheduling.elapsedSeconds;
                said = true;
            }
        }
        if (said) {
            row.secondsPerEpoch = double(elapsed);
            row.timedByJob = true;
        }
    }
    row.samplesPerSecond = steadyMean(visibleValues(series.series(SeriesKind::EpochThroughput)));
    const RunSummary summary = summarize(series);
    // The last epoch's train loss (its mean, beside the val loss measured then, as `metrics` shows it); the last
    // step's where no epoch ended.
    const QList<double> epochLosses = visibleValues(series.series(SeriesKind::EpochTrainLoss));
    row.finalTrainLoss = epochLosses.isEmpty() ? summary.finalLoss : epochLosses.constLast();
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
    // A sweep of one shape (learning rates, seeds) scales nothing: its times differ by noise, not by ranks.
    const bool oneShape = std::all_of(rows.cbegin(), rows.cend(), [&rows](const SweepRow &row) {
        return row.ranks == rows.constFirst().ranks && row.nodes == rows.constFirst().nodes;
    });
    if (oneShape)
        return;
    const bool byJobs = std::none_of(rows.cbegin(), rows.cend(), [](const SweepRow &row) {
        return !row.timedByJob && !std::isnan(row.secondsPerEpoch);
    });
    const auto timed = [byJobs](const SweepRow &row) {
        return !std::isnan(row.secondsPerEpoch) && row.secondsPerEpoch > 0 && row.ranks > 0 && row.timedByJob == byJobs;
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
    const qsizetype secondsColumn = columns.indexOf(QStringLiteral("s/epoch"));
    for (const SweepRow &row : rows) {
        QStringList values = sweepTableCells(row);
        values.last() = row.runId;
        values[secondsColumn] = seconds(row.secondsPerEpoch); // a number; "timed by" is in the JSON
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
            {QStringLiteral("timed_by"), std::isnan(row.secondsPerEpoch) ? QJsonValue()
                                         : row.timedByJob                ? QStringLiteral("job")
                                                                         : QStringLiteral("epochs")},
            {QStringLiteral("samples_per_second"), value(row.samplesPerSecond)},
            {QStringLiteral("speedup"), value(row.speedup)},
            {QStringLiteral("efficiency"), value(row.efficiency)},
            {QStringLiteral("final_train_loss"), value(row.finalTrainLoss)},
            {QStringLiteral("final_val_loss"), value(row.finalValLoss)},
            {QStringLiteral("best_val_loss"), value(row.bestValLoss)}};
}

QList<SweepAxis> sweepAxesOf(const SweepRecord &sweep)
{
    QList<SweepAxis> axes;
    for (const QJsonValue &value : QJsonDocument::fromJson(sweep.axesJson.toUtf8()).array()) {
        QStringList values;
        for (const QJsonValue &text : value[u"values"].toArray())
            values.append(text.toString());
        axes.append({value[u"name"].toString(), values});
    }
    return axes;
}

bool isScalingSweep(const SweepRecord &sweep)
{
    const QList<SweepAxis> axes = sweepAxesOf(sweep);
    return std::all_of(axes.cbegin(), axes.cend(), [](const SweepAxis &axis) { return isShapeSetting(axis.name); });
}

QList<SweepRow> sweepRowsOf(const RunStore &store, const SweepRecord &sweep, const QList<SweepMember> &members,
                            const QList<RunRecord> &runs)
{
    const QList<SweepAxis> axes = sweepAxesOf(sweep);
    QList<SweepRow> rows;
    for (const RunRecord &run : runs) {
        const auto member =
            std::find_if(members.cbegin(), members.cend(), [&](const SweepMember &m) { return m.runId == run.id; });
        const QJsonObject point =
            member == members.cend() ? QJsonObject() : QJsonDocument::fromJson(member->pointJson.toUtf8()).object();
        QList<std::pair<QString, QString>> varied;
        for (const SweepAxis &axis : axes)
            varied.append({axis.name, point.value(axis.name).toString()});
        const auto series = store.runSeries(run.id);
        rows.append(sweepRowOf(run, store.jobs(run.id).value, series.ok() ? series.value : RunSeries{}, varied));
    }
    fillSpeedups(rows);
    sortSweepRows(rows, isScalingSweep(sweep));
    return rows;
}

QList<RunRecord> sweepRunsToResume(const QList<RunRecord> &runs)
{
    QList<RunRecord> unfinished;
    std::copy_if(runs.cbegin(), runs.cend(), std::back_inserter(unfinished),
                 [](const RunRecord &run) { return run.hasEnded() && run.jobState() != JobState::Completed; });
    return unfinished;
}

QList<RunRecord> sweepRunsGoingOn(const QList<RunRecord> &runs)
{
    QList<RunRecord> going;
    std::copy_if(runs.cbegin(), runs.cend(), std::back_inserter(going),
                 [](const RunRecord &run) { return !run.hasEnded(); });
    return going;
}

} // namespace torchdeck
