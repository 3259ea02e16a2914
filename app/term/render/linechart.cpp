#include "term/render/linechart.h"

#include "core/metrics/smoothing.h"
#include "term/render/braillecanvas.h"
#include "term/render/numberformat.h"
#include "term/render/styledline.h"
#include "term/render/textwidth.h"
#include "term/termtr.h"

#include <QSet>
#include <algorithm>
#include <cmath>

namespace torchdeck::term {

namespace {

constexpr int kDiscardedColor = 240;              // dark grey
constexpr qsizetype kMaxDiscardedSamples = 65536; // rows looked at for the dimmed points
constexpr int kMinPlotCols = 4;
constexpr int kMaxLabelDigits = 6;
const QString kLegendMark = QStringLiteral("\u2501"); // ━
const QString kMarkerMark = QStringLiteral("\u250a"); // ┊
constexpr int kMinPlotRowsForMarkerLine = 3;

// The plotted window, y already on the chart's scale (log10 when logarithmic).
struct Window {
    double x0 = 0, x1 = 0, lo = 0, hi = 0;
    double dataX0 = 0, dataX1 = 0; // before widening a single x
    bool log = false;

    double scaled(double y) const { return log ? std::log10(y) : y; }
    double unscaled(double v) const { return log ? std::pow(10.0, v) : v; }
};

bool hasData(const ChartLine &line)
{
    return line.series && std::isfinite(line.xScale) && line.xScale > 0 && line.series->visibleBounds().valid;
}

// The union of the visible bounds; false when no line has a point.
bool dataWindow(const QList<ChartLine> &lines, bool wantLog, Window *w, bool *flat)
{
    bool any = false;
    double yMin = 0, yMax = 0;
    for (const ChartLine &line : lines) {
        if (!hasData(line))
            continue;
        const SeriesBounds b = line.series->visibleBounds();
        const double x0 = b.xMin * line.xScale;
        const double x1 = b.xMax * line.xScale;
        w->x0 = any ? std::min(w->x0, x0) : x0;
        w->x1 = any ? std::max(w->x1, x1) : x1;
        yMin = any ? std::min(yMin, b.yMin) : b.yMin;
        yMax = any ? std::max(yMax, b.yMax) : b.yMax;
        any = true;
    }
    if (!any)
        return false;
    w->log = wantLog && yMin > 0;
    w->lo = w->scaled(yMin);
    w->hi = w->scaled(yMax);
    *flat = !(w->hi > w->lo);
    if (*flat) { // one value: centre it
        const double pad = w->lo == 0 ? 1.0 : std::abs(w->lo) * 0.1;
        w->lo -= pad;
        w->hi += pad;
    }
    w->dataX0 = w->x0;
    w->dataX1 = w->x1;
    if (!(w->x1 > w->x0)) { // one step: centre it
        w->x0 -= 1;
        w->x1 += 1;
    }
    return true;
}

class Plot {
public:
    Plot(const Window &w, int cols, int rows)
        : m_w(w)
        , m_canvas(cols, rows)
    {
    }

    int dotY(double y) const
    {
        const double v = (m_w.hi - m_w.scaled(y)) / (m_w.hi - m_w.lo) * (m_canvas.dotHeight() - 1);
        return static_cast<int>(std::lround(std::clamp(v, 0.0, double(m_canvas.dotHeight() - 1))));
    }
    bool inWindow(double x, double y) const
    {
        const double v = m_w.scaled(y);
        return x >= m_w.x0 && x <= m_w.x1 && v >= m_w.lo && v <= m_w.hi && std::isfinite(v);
    }
    // The value at the middle of a dot row, for the axis labels.
    double valueAtDot(double dotRow) const
    {
        return m_w.unscaled(m_w.hi - dotRow / (m_canvas.dotHeight() - 1) * (m_w.hi - m_w.lo));
    }

    // Where x falls, as the series' buckets put it.
    int dotX(double x) const
    {
        const double dotsPerX = m_canvas.dotWidth() / (m_w.x1 - m_w.x0);
        return std::min(static_cast<int>((x - m_w.x0) * dotsPerX), m_canvas.dotWidth() - 1);
    }

    void drawLine(const ChartLine &line, bool faint = false)
    {
        const QList<SeriesBucket> buckets =
            line.series->buckets(m_w.x0 / line.xScale, m_w.x1 / line.xScale, m_canvas.dotWidth());
        bool havePrevious = false;
        int prevX = 0, prevY = 0;
        for (const SeriesBucket &b : buckets) {
            const int x = b.column;
            if (havePrevious)
                m_canvas.line(prevX, prevY, x, dotY(b.first.y()), line.color, faint);
            m_canvas.line(x, dotY(b.max.y()), x, dotY(b.min.y()), line.color, faint);
            prevX = x;
            prevY = dotY(b.last.y());
            havePrevious = true;
        }
    }

    // Sampled, so that a run resumed after a million steps costs no more than a small one.
    void drawDiscarded(const ChartLine &line)
    {
        const MetricSeries &s = *line.series;
        if (s.size() == s.visibleCount())
            return;
        const qsizetype stride = std::max<qsizetype>(1, s.size() / kMaxDiscardedSamples);
        const double dotsPerX = m_canvas.dotWidth() / (m_w.x1 - m_w.x0);
        for (qsizetype row = 0; row < s.size(); row += stride) {
            const double x = s.x(row) * line.xScale;
            if (!s.isDiscarded(row) || !inWindow(x, s.y(row)))
                continue;
            const int dotX = std::min(static_cast<int>((x - m_w.x0) * dotsPerX), m_canvas.dotWidth() - 1);
            m_canvas.set(dotX, dotY(s.y(row)), kDiscardedColor);
        }
    }

    // A faint dotted column in the cells the curves left blank: the curves stay readable across it.
    void drawMarker(double x)
    {
        const int col = dotX(x) / 2;
        for (int row = 0; row < m_canvas.rows(); ++row) {
            if (m_canvas.isBlank(col, row))
                m_canvas.text(col, row, kMarkerMark, ansi::kNoColor, true);
        }
    }

    const BrailleCanvas &canvas() const { return m_canvas; }

private:
    Window m_w;
    BrailleCanvas m_canvas;
};

QString formatX(double x)
{
    return std::abs(x) < 1e15 && x == std::floor(x) ? formatCount(x) : formatCompact(x);
}

double smoothingOf(const ChartLine &line)
{
    return clampSmoothingWeight(line.smoothing);
}

// Label rows of the y axis: the ends, then the middle and quarters as the height allows, and the row of a
// flat series' value.
QList<int> tickRows(int plotRows, bool flat, const Plot &plot, double flatValue)
{
    QList<int> rows{0, plotRows - 1};
    if (flat) {
        rows.append(plot.dotY(flatValue) / 4);
    } else if (plotRows >= 5) {
        rows.append((plotRows - 1) / 2);
        if (plotRows >= 9) {
            rows.append((plotRows - 1) / 4);
            rows.append((plotRows - 1) * 3 / 4);
        }
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

// Labels as short as possible while still telling the ticks apart.
QStringList tickLabels(const QList<double> &values)
{
    QStringList labels;
    for (int digits = 3; digits <= kMaxLabelDigits; ++digits) {
        labels.clear();
        for (double v : values)
            labels.append(formatCompact(v, digits));
        if (QSet<QString>(labels.cbegin(), labels.cend()).size() == labels.size())
            break;
    }
    return labels;
}

QString titleLine(const QList<ChartLine> &lines, const LineChartOptions &options, bool log, int cols)
{
    StyledLine out(cols, options.useColor);
    out.add(terminalSafe(options.title), {ansi::kNoColor, true});
    if (log)
        out.add(Tr::tr(" (log)"));
    for (const ChartLine &line : lines) {
        if (!hasData(line) || line.name.isEmpty())
            continue;
        out.add(u"  ");
        out.add(kLegendMark, {line.color});
        out.add(QString(u' ' + terminalSafe(line.name)));
    }
    const auto smoothedLine = std::find_if(
        lines.cbegin(), lines.cend(), [](const ChartLine &line) { return hasData(line) && smoothingOf(line) > 0; });
    if (smoothedLine != lines.cend()) {
        out.add(u"  ");
        out.add(Tr::tr("smoothing %1").arg(smoothingOf(*smoothedLine)), {ansi::kNoColor, false, true});
    }
    return out.finish();
}

QStringList placeholder(const LineChartOptions &options, int cols, int rows, const QString &text)
{
    QStringList out;
    StyledLine title(cols, options.useColor);
    title.add(terminalSafe(options.title), {ansi::kNoColor, true});
    if (rows == 1)
        title.add(QString(u"  " + text), {ansi::kNoColor, false, true});
    out.append(title.finish());
    for (int r = 1; r < rows; ++r) {
        StyledLine line(cols, options.useColor);
        if (r == rows / 2) {
            line.addSpaces((cols - displayWidth(text)) / 2);
            line.add(text, {ansi::kNoColor, false, true});
        }
        out.append(line.finish());
    }
    return out;
}

// The x range under the plot: first x on the left, last on the right, the axis name between them.
QString xAxisLine(const Window &w, const LineChartOptions &options, int labelWidth, int cols)
{
    const int plotCols = cols - labelWidth - 1;
    const TextStyle axis{ansi::kNoColor, false, true};
    StyledLine xAxis(cols, options.useColor);
    xAxis.addSpaces(labelWidth + 1);
    const QString name = terminalSafe(options.xName);
    const QString from = formatX(w.dataX0);
    const QString to = formatX(w.dataX1);
    const int gap = plotCols - displayWidth(from) - displayWidth(to);
    if (!(w.dataX1 > w.dataX0)) { // one x, drawn in the middle
        const QString only = QString(name + u' ' + from);
        xAxis.addSpaces((plotCols - displayWidth(only)) / 2);
        xAxis.add(only, axis);
    } else if (gap >= displayWidth(name) + 2) {
        const int before = (gap - displayWidth(name)) / 2;
        xAxis.add(QString(from + QString(before, u' ') + name + QString(gap - before - displayWidth(name), u' ') + to),
                  axis);
    } else if (gap >= 1) {
        xAxis.add(QString(from + QString(gap, u' ') + to), axis);
    } else {
        xAxis.add(from, axis);
    }
    return xAxis.finish();
}

// The markers' names after the plot's left edge, oldest first; when not all fit, the newest that do.
QString markerLine(const QList<ChartMarker> &markers, const LineChartOptions &options, int labelWidth, int cols)
{
    const TextStyle faint{ansi::kNoColor, false, true};
    const QString separator = QStringLiteral("  ");
    QStringList texts;
    for (const ChartMarker &marker : markers)
        texts.append(QString(
            kMarkerMark + u' ' +
            Tr::tr("%1 (%2 %3)").arg(terminalSafe(marker.label), terminalSafe(options.xName), formatX(marker.x))));
    const int room = cols - labelWidth - 1;
    qsizetype first = texts.size() - 1; // the newest, cut if it alone is too wide
    int width = displayWidth(texts.constLast());
    while (first > 0) {
        const int more = displayWidth(texts.at(first - 1)) + int(separator.size());
        if (width + more > room)
            break;
        width += more;
        --first;
    }
    StyledLine line(cols, options.useColor);
    line.addSpaces(labelWidth + 1);
    for (qsizetype i = first; i < texts.size(); ++i)
        line.add(i > first ? QString(separator + texts.at(i)) : texts.at(i), faint);
    return line.finish();
}

} // namespace

QStringList renderLineChart(const QList<ChartLine> &lines, const LineChartOptions &options, int cols, int rows)
{
    cols = std::max(cols, 0);
    rows = std::max(rows, 0);
    if (rows == 0)
        return {};
    Window w;
    bool flat = false;
    if (!dataWindow(lines, options.logY, &w, &flat))
        return placeholder(options, cols, rows, Tr::tr("no data yet"));

    int plotRows = rows - 2; // title above, x range below
    if (plotRows < 2) {
        QPointF last;
        const auto first = std::find_if(lines.cbegin(), lines.cend(), hasData);
        first->series->lastVisible(&last);
        return placeholder(options, cols, rows, Tr::tr("last %1").arg(formatCompact(last.y())));
    }

    QList<ChartMarker> markers;
    for (const ChartMarker &marker : options.markers) {
        if (marker.x >= w.x0 && marker.x <= w.x1)
            markers.append(marker);
    }
    const bool namesMarkers = !markers.isEmpty() && plotRows - 1 >= kMinPlotRowsForMarkerLine;
    if (namesMarkers)
        --plotRows; // the markers' names under the x range

    // Labels first: their width decides the plot's.
    Plot probe(w, 1, plotRows);
    const double flatValue = w.unscaled((w.lo + w.hi) / 2);
    const QList<int> ticks = tickRows(plotRows, flat, probe, flatValue);
    QList<double> values;
    for (int r : ticks) {
        const bool valueRow = flat && r == probe.dotY(flatValue) / 4;
        const double dotRow = r == 0 ? 0.0 : r == plotRows - 1 ? plotRows * 4.0 - 1 : r * 4 + 1.5;
        values.append(valueRow ? flatValue : probe.valueAtDot(dotRow));
    }
    const QStringList labels = tickLabels(values);
    int labelWidth = 0;
    for (const QString &l : labels)
        labelWidth = std::max(labelWidth, displayWidth(l));
    const int plotCols = cols - labelWidth - 1;
    if (plotCols < kMinPlotCols)
        return placeholder(options, cols, rows, Tr::tr("(too narrow)"));

    Plot plot(w, plotCols, plotRows);
    if (options.useColor) {
        for (const ChartLine &line : lines) {
            if (hasData(line) && line.showDiscarded)
                plot.drawDiscarded(line);
        }
    }
    for (const ChartLine &line : lines) { // raw curves faint, under every full-intensity one
        if (hasData(line) && smoothingOf(line) > 0)
            plot.drawLine(line, true);
    }
    for (const ChartLine &line : lines) {
        if (!hasData(line))
            continue;
        if (smoothingOf(line) > 0) {
            const MetricSeries smooth = smoothedSeries(*line.series, smoothingOf(line));
            ChartLine smoothLine = line;
            smoothLine.series = &smooth;
            plot.drawLine(smoothLine);
        } else {
            plot.drawLine(line);
        }
    }
    for (const ChartMarker &marker : std::as_const(markers))
        plot.drawMarker(marker.x);

    QStringList out{titleLine(lines, options, w.log, cols)};
    const TextStyle axis{ansi::kNoColor, false, true};
    for (int r = 0; r < plotRows; ++r) {
        StyledLine line(cols, options.useColor);
        const qsizetype tick = ticks.indexOf(r);
        line.add(padLeft(tick >= 0 ? labels[tick] : QString(), labelWidth));
        line.add(tick >= 0 ? u"\u2524" : u"\u2502", axis); // ┤ │
        line.addRendered(plot.canvas().row(r, options.useColor), plotCols);
        out.append(line.finish());
    }

    out.append(xAxisLine(w, options, labelWidth, cols));
    if (namesMarkers)
        out.append(markerLine(markers, options, labelWidth, cols));
    return out;
}

} // namespace torchdeck::term
