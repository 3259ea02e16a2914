#pragma once

#include <QString>

namespace torchdeck::term {

// Shell completion scripts generated from the command table (commandtable.h). Cluster names and runs are
// asked of `torchdeck __complete clusters|runs` while completing: cheap, local, no connection.
QString bashCompletion();
QString zshCompletion();
QString fishCompletion();

} // namespace torchdeck::term
