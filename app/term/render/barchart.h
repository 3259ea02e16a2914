#pragma once

#include "core/metrics/metricseries.h"
#include "term/render/ansi.h"

#include <QStringList>

namespace torchdeck::term {

struct BarChartOptions {
    QString title = QStringLiteral("epoch time");
    QString xName = QStringLiteral("epoch");
    QString unit = QStringLiteral("s");
    int color = ansi::kNoColor;
    bool useColor = true;
};

// Horizontal bars in eighth blocks, one row per x (epoch), the latest that fit, each with its value:
// " 3 ████████▋ 12.3s". Exactly `rows` lines of exactly `cols` cells; no point: a placeholder.
QStringList renderBarChart(const MetricSeries &series, const BarChartOptions &options, int cols, int rows);

} // namespace torchdeck::term
