#pragma once

#include <QString>
#include <optional>

namespace torchdeck {

// The one way torchdeck writes a duration for people: "45s", "2m05s", "1h02m", "3d04h" (two units at most,
// rounded to the second). Empty for an unknown or negative duration; the fronts choose their own blank.
QString formatDuration(double seconds);

// A duration as people type one: "90" or "90s", "5m", "2h", "1d", or units together ("1h30m"). Seconds; nothing
// for anything else, a unit twice or out of order, or zero.
std::optional<qint64> parseDuration(const QString &text);

} // namespace torchdeck
