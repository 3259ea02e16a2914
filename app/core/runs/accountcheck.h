#pragma once

#include "core/clustercheckitem.h"
#include "core/schedulerkind.h"

#include <QStringList>

namespace torchdeck {

// The cluster check's "Fair share" and "Quota" lines: where a site's scheduler and file systems say them, the
// user's standing in the queue (why jobs may wait) and how full their quotas are (a full one kills a job at
// its next checkpoint). Neither fails the check: a cluster that reports neither is no worse for a job.

// A POSIX shell script: "none" where there is nothing to ask, else sshare's -P lines Account|User|FairShare.
QString fairShareProbeScript(const QStringList &moduleLines, SchedulerKind scheduler);
CheckItem fairShareItem(int exitCode, const QString &out, const QString &err);

// A POSIX shell script: "none" without quota tools, else "== quota" and `quota -s -w`'s lines, and
// "== lfs MOUNT" and `lfs quota -q -u` lines for each Lustre mount.
QString quotaProbeScript();
CheckItem quotaItem(const QString &out);

} // namespace torchdeck
