#include "term/render/watchscreen.h"

#include "term/render/barchart.h"
#include "term/render/linechart.h"
#include "term/render/numberformat.h"
#include "term/render/styledline.h"
#include "term/render/table.h"
#include "term/render/textwidth.h"
#include "term/termtr.h"

#include <algorithm>

namespace torchdeck::term {

namespace {

constexpr int kTrainColor = 39;  // blue
constexpr int kValColor = 214;   // orange
constexpr int kBarColor = 71;    // green
constexpr int kErrorColor = 196; // red
constexpr int kAskColor = 220;   // yellow
constexpr int kMinChartRows = 4;
constexpr int kMinStackedRows = 12; // below: the loss chart alone
constexpr int kMaxTableRuns = 10;

// Rows given to each part, top to bottom.
struct Layout {
    int table = 0;
    int charts = 0;
    int throughput = 0;
    int logs = 0;
    int message = 0;
    int help = 1;
};

Layout layoutFor(const WatchSnapshot &s, int rows)
{
    Layout l;
    l.message = s.message.isEmpty() ? 0 : 1;
    const int runs = std::max<int>(1, int(s.runs.size()));
    l.table = 1 + std::min(runs, std::clamp((rows - 8) / 4, 1, kMaxTableRuns));
    const int left = std::max(0, rows - l.help - l.message - l.table);
    l.throughput = left >= 6 ? 1 : 0;
    const int logsWanted = rows >= 40 ? 8 : rows >= 24 ? 4 : rows >= 16 ? 2 : 0;
    l.logs = std::clamp(left - l.throughput - kMinChartRows, 0, logsWanted);
    l.charts = left - l.throughput - l.logs;
    if (l.charts < kMinChartRows) { // no room for a chart: the log takes it
        l.logs += l.charts;
        l.charts = 0;
    }
    return l;
}

QString epochText(const WatchRunRow &r)
{
    return QString(QString::number(r.epochsDone) + u'/' +
                   (r.epochsTotal >= 0 ? QString::number(r.epochsTotal) : QStringLiteral("?")));
}

Table runsTable(const WatchSnapshot &s)
{
    Table t;
    t.columns = {{Tr::tr("RUN"), false, 8},   {Tr::tr("NAME"), false, 6}, {Tr::tr("CLUSTER"), false, 6},
                 {Tr::tr("STATE"), false, 7}, {Tr::tr("EPOCH"), true, 3}, {Tr::tr("LOSS"), true, 6},
                 {Tr::tr("ETA"), true, 3},    {Tr::tr("JOBS"), false, 6}};
    for (const WatchRunRow &r : s.runs)
        t.rows.append({r.id, r.name, r.cluster, r.state, epochText(r), formatCompact(r.lastLoss),
                       formatDuration(r.etaSeconds), r.jobIds.join(u',')});
    t.selected = s.selected;
    t.emptyText = Tr::tr("no runs yet");
    return t;
}

QStringList lossChart(const WatchSnapshot &s, int cols, int rows)
{
    LineChartOptions options;
    options.logY = s.logScale;
    options.useColor = s.useColor;
    options.title = Tr::tr("loss");
    QList<ChartLine> lines;
    if (const RunSeries *run = s.series) {
        const MetricSeries &steps = run->series(SeriesKind::TrainLoss);
        const qint64 stepsPerEpoch = run->info().stepsPerEpoch;
        if (!steps.isEmpty()) {
            lines.append({&steps, Tr::tr("train"), kTrainColor, 1.0, true});
            if (stepsPerEpoch > 0) // val loss comes by epoch: epoch e ends at step e * steps per epoch
                lines.append(
                    {&run->series(SeriesKind::ValLoss), Tr::tr("val"), kValColor, double(stepsPerEpoch), true});
            options.markers = s.attemptsByStep;
        } else { // only epoch summaries (plain logs): the chart goes by epoch
            options.xName = Tr::tr("epoch");
            lines.append({&run->series(SeriesKind::EpochTrainLoss), Tr::tr("train"), kTrainColor, 1.0, true});
            lines.append({&run->series(SeriesKind::ValLoss), Tr::tr("val"), kValColor, 1.0, true});
            options.markers = s.attemptsByEpoch;
        }
        lines.first().smoothing = s.smoothing; // the noisy one; val loss has a point an epoch
    }
    return renderLineChart(lines, options, cols, rows);
}

QStringList epochBars(const WatchSnapshot &s, int cols, int rows)
{
    static const MetricSeries kEmpty;
    BarChartOptions options;
    options.color = kBarColor;
    options.useColor = s.useColor;
    return renderBarChart(s.series ? s.series->series(SeriesKind::EpochSeconds) : kEmpty, options, cols, rows);
}

QStringList charts(const WatchSnapshot &s, int cols, int rows)
{
    if (cols >= kSideBySideCols) {
        const int barCols = std::clamp(cols / 3, 30, 50);
        const int lossCols = cols - barCols - 1;
        const QStringList loss = lossChart(s, lossCols, rows);
        const QStringList bars = epochBars(s, barCols, rows);
        QStringList out;
        for (int r = 0; r < rows; ++r)
            out.append(QString(loss[r] + u' ' + bars[r]));
        return out;
    }
    if (rows < kMinStackedRows)
        return lossChart(s, cols, rows);
    // Bars take what their epochs need, up to two fifths; the loss chart the rest.
    const qsizetype epochs = s.series ? s.series->series(SeriesKind::EpochSeconds).visibleCount() : 0;
    const int barRows = std::clamp(int(std::min<qsizetype>(epochs, rows)) + 1, 3, std::max(3, rows * 2 / 5));
    return lossChart(s, cols, rows - barRows) + epochBars(s, cols, barRows);
}

QString throughputLine(const WatchSnapshot &s, int cols)
{
    StyledLine line(cols, s.useColor);
    const TextStyle key{ansi::kNoColor, false, true};
    QPointF last;
    if (!s.series || !s.series->series(SeriesKind::Throughput).lastVisible(&last)) {
        line.add(Tr::tr("throughput: no samples yet"), key);
    } else {
        line.add(Tr::tr("samples/s "), key);
        line.add(formatCompact(last.y(), 4));
        line.add(Tr::tr("  at step "), key);
        line.add(formatCount(last.x()));
    }
    if (s.selected >= 0 && s.selected < s.runs.size()) {
        const WatchRunRow &r = s.runs[s.selected];
        line.add(Tr::tr("  epoch "), key);
        line.add(epochText(r));
        line.add(Tr::tr("  eta "), key);
        line.add(formatDuration(r.etaSeconds));
        if (!r.resources.isEmpty()) {
            line.add(Tr::tr("  uses "), key);
            line.add(terminalSafe(r.resources));
        }
        if (!r.slowestRank.isEmpty()) {
            line.add(QStringLiteral("  "));
            line.add(terminalSafe(r.slowestRank), key);
        }
        if (MetricEvent::has(r.nextCheckpointIn) && MetricEvent::has(r.signalIn)) {
            line.add(Tr::tr("  next ckpt "), key);
            line.add(formatDuration(r.nextCheckpointIn));
            if (r.nextCheckpointIn <= r.signalIn)
                line.add(Tr::tr(" before the signal"), key);
            else // the signal's own checkpoint saves the run, but an epoch's end will not be reached
                line.add(Tr::tr(" after the signal"), TextStyle{ansi::kNoColor, true, false});
        }
        if (!r.jobIds.isEmpty()) {
            line.add(Tr::tr("  jobs "), key);
            line.add(terminalSafe(r.jobIds.join(u", ")));
        }
        if (!r.why.isEmpty()) {
            line.add(QStringLiteral("  "));
            line.add(terminalSafe(r.why), key);
        }
    }
    return line.finish();
}

QStringList logBlock(const WatchSnapshot &s, int cols, int rows)
{
    QStringList out;
    const QStringList shown = s.logLines.mid(std::max<qsizetype>(0, s.logLines.size() - rows));
    for (const QString &text : shown) {
        StyledLine line(cols, s.useColor);
        line.add(terminalSafe(text), {ansi::kNoColor, false, true});
        out.append(line.finish());
    }
    while (out.size() < rows)
        out.append(QString(cols, u' '));
    return out;
}

QString messageLine(const WatchSnapshot &s, int cols)
{
    StyledLine line(cols, s.useColor);
    line.add(terminalSafe(s.message), {s.messageIsError ? kErrorColor : kAskColor, true});
    return line.finish();
}

QString helpLine(const WatchSnapshot &s, int cols)
{
    StyledLine line(cols, s.useColor);
    const TextStyle bar{ansi::kNoColor, false, false, true};
    line.add(QString(u' ' + terminalSafe(s.helpLine)), bar);
    line.addSpaces(line.room(), bar);
    return line.finish();
}

} // namespace

double nextWatchSmoothing(double current)
{
    for (const double weight : kWatchSmoothings) {
        if (weight > current + 1e-9)
            return weight;
    }
    return kWatchSmoothings[0];
}

QStringList watchScreenLines(const WatchSnapshot &snapshot, int cols, int rows)
{
    cols = std::max(cols, 0);
    rows = std::max(rows, 0);
    QStringList out;
    if (cols < kMinWatchCols || rows < kMinWatchRows) {
        for (int r = 0; r < rows; ++r)
            out.append(padRight(r == 0 ? Tr::tr("terminal too small") : QString(), cols));
        return out;
    }
    const Layout l = layoutFor(snapshot, rows);
    out += renderTable(runsTable(snapshot), cols, l.table, snapshot.useColor);
    if (l.charts > 0)
        out += charts(snapshot, cols, l.charts);
    if (l.throughput > 0)
        out.append(throughputLine(snapshot, cols));
    out += logBlock(snapshot, cols, l.logs);
    if (l.message > 0)
        out.append(messageLine(snapshot, cols));
    out.append(helpLine(snapshot, cols));
    return out;
}

QString renderWatchScreen(const WatchSnapshot &snapshot, int cols, int rows)
{
    // The clear comes before each line: after a full-width line the cursor sits on the last column, where a
    // trailing clear would erase the character just written.
    QString frame = ansi::kCursorHome;
    const QStringList lines = watchScreenLines(snapshot, cols, rows);
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (i > 0)
            frame += u"\r\n";
        frame += ansi::kClearToEndOfLine;
        frame += lines[i];
    }
    return frame;
}

} // namespace torchdeck::term
