#pragma once

#include "core/metrics/metricseries.h"
#include "term/render/ansi.h"
#include "term/termtr.h"

#include <QStringList>

namespace torchdeck::term {

struct BarChartOptions {
    QString title = Tr::tr("epoch time");
    QString xName = Tr::tr("epoch");
    QString unit = Tr::tr("s");
    int color = ansi::kNoColor;
    bool useColor = true;
};

// Horizontal bars in eighth blocks, one row per x (epoch), the latest that fit, each with its value:
// " 3 ████████▋ 12.3s". Exactly `rows` lines of exactly `cols` cells; no point: a placeholder.
QStringList renderBarChart(const MetricSeries &series, const BarChartOptions &options, int cols, int rows);

} // namespace torchdeck::term
