#pragma once

#include "core/clustercheckitem.h"

#include <QStringList>

namespace torchdeck {

// The cluster check's "PyTorch launcher" line: which torchrun and PyTorch users' own scripts would get after
// the profile's modules. A warning at most: the bundled trainer does not need PyTorch for Python.

// A POSIX shell script that prints "torchrun PATH|none", "python V", "torch V" or "torch none ...", and
// "broken True|False|unknown".
QString pyTorchLauncherProbeScript(const QStringList &moduleLines);

// The line, from what that script printed.
CheckItem pyTorchLauncherItem(const QString &probeOutput);

} // namespace torchdeck
