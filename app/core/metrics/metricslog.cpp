#include "core/metrics/metricslog.h"

Q_LOGGING_CATEGORY(lcMetrics, "torchdeck.metrics", QtInfoMsg)
