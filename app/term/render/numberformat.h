#pragma once

#include <QString>

namespace torchdeck::term {

// Short numbers for axes and tables: "0.0421", "12.3", "1234", "1.2e-3" (below 0.01), "3.4e6"; "-" for
// NaN/inf. `significant` digits are kept (at least 1).
QString formatCompact(double value, int significant = 3);
// Whole numbers such as steps, with thousands separators past 99,999: "1000", "1,000,000".
QString formatCount(double value);
// core/duration.h's "35s", "12m05s", "3h20m", "2d04h"; "-" when unknown.
QString formatDuration(double seconds);

} // namespace torchdeck::term
