#include "gui/runchartaxes.h"

#include "gui/runchartticks.h"

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace torchdeck {

namespace {
void setAxisRange(QAbstractAxis *axis, double lo, double hi)
{
    if (auto *log = qobject_cast<QLogValueAxis *>(axis))
        log->setRange(lo, hi);
    else
        static_cast<QValueAxis *>(axis)->setRange(lo, hi);
}

std::pair<double, double> axisRange(QAbstractAxis *axis)
{
    if (auto *log = qobject_cast<QLogValueAxis *>(axis))
        return {log->min(), log->max()};
    auto *linear = static_cast<QValueAxis *>(axis);
    return {linear->min(), linear->max()};
}

void fitY(QAbstractAxis *axis, double lo, double hi)
{
    if (qobject_cast<QLogValueAxis *>(axis))
        return setAxisRange(axis, lo / 1.2, hi * 1.2);
    const double pad = hi > lo ? (hi - lo) * 0.05 : std::max(std::abs(hi) * 0.05, 1e-9);
    setAxisRange(axis, lo - pad, hi + pad);
}
} // namespace

QAbstractAxis *axisOf(QChart *chart, Qt::Orientation orientation)
{
    const auto axes = chart->axes(orientation);
    return axes.isEmpty() ? nullptr : axes.constFirst();
}

void replaceYAxis(QChart *chart, bool log, const QString &title)
{
    if (QAbstractAxis *old = axisOf(chart, Qt::Vertical)) {
        chart->removeAxis(old); // detaches its series
        delete old;
    }
    QAbstractAxis *axis = nullptr;
    if (log) {
        auto *logAxis = new QLogValueAxis;
        logAxis->setLabelFormat(QStringLiteral("%.3g"));
        logAxis->setMinorTickCount(-1);
        axis = logAxis;
    } else {
        axis = makeTickedAxis(chart);
    }
    axis->setTitleText(title);
    chart->addAxis(axis, Qt::AlignLeft);
    for (QAbstractSeries *series : chart->series())
        series->attachAxis(axis);
}

void drawDecimated(QChart *chart, const QList<QLineSeries *> &lines, const QList<const MetricSeries *> &series,
                   bool zoomed, int minimumColumns)
{
    QAbstractAxis *xAxis = axisOf(chart, Qt::Horizontal);
    QAbstractAxis *yAxis = axisOf(chart, Qt::Vertical);
    const bool log = qobject_cast<QLogValueAxis *>(yAxis) != nullptr;
    const int columns = std::max(minimumColumns, int(chart->plotArea().width()));
    const auto [zoomLo, zoomHi] = axisRange(xAxis);
    double xLo = INFINITY, xHi = -INFINITY, yLo = INFINITY, yHi = -INFINITY;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QList<QPointF> points;
        const SeriesBounds bounds = series.at(i) ? series.at(i)->visibleBounds() : SeriesBounds{};
        if (bounds.valid) // zoomed: the visible range at full resolution for it
            points = zoomed ? series.at(i)->decimated(zoomLo, zoomHi, columns)
                            : series.at(i)->decimated(bounds.xMin, bounds.xMax, columns);
        if (log)
            points.removeIf([](const QPointF &p) { return p.y() <= 0; });
        for (const QPointF &p : std::as_const(points)) {
            xLo = std::min(xLo, p.x());
            xHi = std::max(xHi, p.x());
            yLo = std::min(yLo, p.y());
            yHi = std::max(yHi, p.y());
        }
        lines.at(i)->replace(points);
    }
    if (zoomed || xLo > xHi)
        return;
    setAxisRange(xAxis, xLo, xHi > xLo ? xHi : xLo + 1);
    fitY(yAxis, yLo, yHi);
}

} // namespace torchdeck
