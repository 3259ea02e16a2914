#pragma once

#include "core/metrics/logcontext.h"

#include <QStringView>
#include <optional>

namespace torchdeck {

// The general reader of what training scripts print (docs/metrics-schema.md, "Users' own scripts"): the named
// numbers of a line (logFields) by what their names mean (logRole). Empty: the line carries no name torchdeck
// knows (no loss, accuracy, lr, epoch or step), so it is left to the built-in patterns. `text` has its rank
// label and timestamps read past (ownLogText).
std::optional<LineReading> generalReading(QStringView text);

} // namespace torchdeck
