#pragma once

#include <QStringView>
#include <optional>

namespace torchdeck {

// What is left of a log line once the labels that launchers and loggers put before it are read past: srun
// --label's "3: ", torchrun's "[rank3]:" / "[default3]:", DeepSpeed's "[Rank 3]", timestamps, and logger
// prefixes ("INFO:root:", "2024-11-26 07:10:05 | INFO | train |", "name| 11-26 07:10:05 "). Empty optional:
// the line is another rank's than rank 0's, and counts for nothing.
std::optional<QStringView> ownLogText(QStringView line);

} // namespace torchdeck
