#pragma once

#include "core/scheduler/jobinfo.h"

#include <QByteArray>
#include <QHash>
#include <QString>

namespace torchdeck {

// Output of `scontrol --oneliner show job [ID]`: one job per line of Key=Value pairs. Values of some keys
// hold spaces (JobName, Command, WorkDir, StdOut, Comment, Reason...): such a value ends only where a key
// scontrol is known to print begins. `scontrol show job` without an id lists every job: one command for
// any number of watched jobs.
JobListResult parseScontrolShowJob(const QByteArray &output);

// One line's Key=Value pairs, by the rule above (exposed for tests).
QHash<QString, QString> scontrolFields(const QString &line);

} // namespace torchdeck
