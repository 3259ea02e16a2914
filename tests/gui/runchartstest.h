#pragma once

// What the chart tests share: the charts on screen, drawing a run.
#include "core/store/runmetrics.h"
#include "gui/runcharts.h"

#include <QTest>

namespace torchdeck::testing {

// Shows `charts` at `size` and has them draw `metrics`; false: the window never appeared.
[[nodiscard]] inline bool showRun(RunCharts &charts, RunMetrics *metrics, QSize size = QSize(1000, 600))
{
    charts.resize(size);
    charts.show();
    if (!QTest::qWaitForWindowExposed(&charts))
        return false;
    charts.setRun(metrics);
    return true;
}

} // namespace torchdeck::testing
