#pragma once

namespace torchdeck {

// How long a straight copy between two clusters' login nodes may take (core/runs/runfiles.h straightCopyCommand).
inline constexpr int kStraightCopyDeadlineMs = 3600000; // some GiB between two sites

} // namespace torchdeck
