#pragma once

#include "core/schedulerkind.h"

#include <QByteArray>
#include <QString>

namespace torchdeck {

// A stack dump of every process of a running job, for a run that stalls: on each node of the job, inside its
// allocation (Slurm: srun --overlap, as the resource probe; PBS: ssh to its first node), `py-spy dump` for a
// Python process where py-spy is installed, else `gdb -batch -ex "thread apply all bt"`. Each process comes
// under a header "== NODE pid PID rank R (COMMAND) ==". Shells and launchers (sh, bash, srun, the batch
// script) are left out. Attaching needs ptrace rights over one's own processes (kernel.yama.ptrace_scope 0 or
// 1 with the tool's capability; sites differ): gdb's refusal is shown as it says it.
QString stackDumpCommand(SchedulerKind kind, const QString &jobId, const QString &nodes);

// The command's output put together: srun --label's lines grouped by node, in node order, labels dropped.
QString assembleStackDump(SchedulerKind kind, const QByteArray &output);

} // namespace torchdeck
