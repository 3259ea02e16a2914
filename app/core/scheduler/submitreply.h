#pragma once

#include "core/scheduler/jobinfo.h"

#include <QByteArray>

namespace torchdeck {

// sbatch's stdout: "123" or "123;cluster" (--parsable), or "Submitted batch job 123[ on cluster X]".
// Site banners before it are skipped: the reply is the last line that has a job id.
SubmitResult parseSbatchReply(const QByteArray &output);

// qsub's stdout: "123.server" (PBS Pro, OpenPBS, Torque) or "123" (Slurm's torque wrapper).
SubmitResult parseQsubReply(const QByteArray &output);

// A local run's reply: the process id printed by the local submit command.
SubmitResult parseLocalReply(const QByteArray &output);

} // namespace torchdeck
