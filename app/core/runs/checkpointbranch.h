#pragma once

#include "core/store/storeresult.h"

#include <QString>
#include <QtGlobal>

namespace torchdeck {

class RunStore;

// Resuming from a chosen checkpoint starts a branch of the run. The run's live checkpoint directory must
// then hold nothing newer than the choice, or a later `--resume auto` (an automatic restart, an in-job
// requeue) would continue the abandoned line. The newer checkpoints are kept, moved to
// `superseded-a<attempt>/` inside it, and a choice from elsewhere is copied into the live directory.
struct CheckpointBranch {
    QString liveDirectory; // the trainer's --checkpoint-dir for the new attempt
    QString chosen;        // the checkpoint to resume from (absolute)
    int attempt = 0;       // the attempt that resumes

    QString asideDirectory() const;
    // The step in a checkpoint-<step>.pt name; -1 when the name has none.
    qint64 chosenStep() const;
    // A POSIX shell command that makes the move and prints `moved NAME` / `copied NAME` per file.
    QString command() const;
    // Records the moves and the copy the command printed in the run's checkpoint list.
    [[nodiscard]] StoreStatus apply(RunStore &store, const QString &runId, const QByteArray &commandOutput) const;
};

} // namespace torchdeck
