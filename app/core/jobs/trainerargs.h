#pragma once

#include <QString>
#include <QStringList>

namespace torchdeck {

// Why the bundled trainer would refuse these arguments (empty: it reads them), said by its own option parser
// (trainer/cli/options.cpp, built into this library too): a submission is refused here, not on the cluster.
QString bundledTrainerArgsProblem(const QStringList &args);

} // namespace torchdeck
