#pragma once

#include "core/metrics/metricseries.h"

#include <QList>

class QAbstractAxis;
class QChart;
class QLineSeries;

namespace torchdeck {

// Axis and line helpers of RunCharts (the Qt Charts corner of the GUI, see runcharts.h).
QAbstractAxis *axisOf(QChart *chart, Qt::Orientation orientation);
// Replaces the chart's vertical axis by a linear or logarithmic one; every series of the chart uses it.
void replaceYAxis(QChart *chart, bool log, const QString &title);

// Draws each series on its line, decimated to about one point per pixel column. Not zoomed: over the whole
// series, and the axes fit the points. Zoomed: over the chart's current x range, and the axes stay.
// A logarithmic axis drops the points <= 0. Null series draw nothing.
void drawDecimated(QChart *chart, const QList<QLineSeries *> &lines, const QList<const MetricSeries *> &series,
                   bool zoomed, int minimumColumns);

} // namespace torchdeck
