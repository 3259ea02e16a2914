#pragma once

#include <QString>

namespace torchdeck {

// torchdeck's folders and files hold job environments (--env WANDB_API_KEY=...) and runs that other users of
// a shared workstation must not read.

// Makes `path` (and its parents) and leaves it private to the user (0700); an error when it is another
// user's or cannot be made so.
[[nodiscard]] QString makePrivateDirectory(const QString &path);
// Leaves an existing file readable and writable by the user only (0600); none there is no error.
[[nodiscard]] QString makePrivateFile(const QString &path);

} // namespace torchdeck
