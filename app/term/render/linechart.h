#pragma once

#include "core/metrics/metricseries.h"
#include "term/render/ansi.h"
#include "term/termtr.h"

#include <QList>
#include <QStringList>
#include <utility>

namespace torchdeck::term {

struct ChartLine {
    ChartLine() = default;
    ChartLine(const MetricSeries *s, QString n = {}, int c = ansi::kNoColor, double scale = 1.0, bool discarded = false)
        : series(s)
        , name(std::move(n))
        , color(c)
        , xScale(scale)
        , showDiscarded(discarded)
    {
    }

    const MetricSeries *series = nullptr;
    QString name;
    int color = ansi::kNoColor;
    double xScale = 1.0;        // chart x = series x * xScale (val loss by epoch drawn against steps)
    bool showDiscarded = false; // points superseded by a resume, dimmed under the curve (colour only)
    double smoothing = 0;       // > 0: the raw curve faint, its debiased EMA with this weight over it
};

// A vertical line across the plot at a chart x, named under the x range (where one attempt of a run ended
// and the next began).
struct ChartMarker {
    double x = 0;
    QString label; // "job 101: wall time"
};

struct LineChartOptions {
    QString title;
    QString xName = Tr::tr("step");
    bool logY = false; // falls back to linear when a value is <= 0
    bool useColor = true;
    QList<ChartMarker> markers; // oldest first
};

// A chart in a box of exactly `rows` lines of exactly `cols` cells: the title and legend, y labels with
// ticks, the braille plot, the x range, and a line naming the markers in the x range when there is room.
// Each line costs O(columns) to draw: series are decimated into one min/max bucket a dot column; a smoothed
// one costs O(points) more. No visible point: a "no data yet" placeholder.
QStringList renderLineChart(const QList<ChartLine> &lines, const LineChartOptions &options, int cols, int rows);

} // namespace torchdeck::term
