#pragma once

#include <QString>

namespace torchdeck {

// The one way torchdeck writes a duration for people: "45s", "2m05s", "1h02m", "3d04h" (two units at most,
// rounded to the second). Empty for an unknown or negative duration; the fronts choose their own blank.
QString formatDuration(double seconds);

} // namespace torchdeck
