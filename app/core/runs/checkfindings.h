#pragma once

#include "core/clustercheckitem.h"
#include "core/profiles/clusterprofile.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>

namespace torchdeck {

// "Partitions", a line of `torchdeck check` (Slurm): what `sinfo` printed (core/profiles/partitionshape.h), its
// finding the partitions as JSON for the profile. A cluster whose sinfo fails is warned of: its limits go
// unchecked.
CheckItem partitionsCheckItem(int exitCode, const QByteArray &out, const QString &err);
// "Accounts": the user's associations as `sacctmgr` lists them (core/profiles/accountlimits.h); none listed (no
// accounting database) passes, saying their limits are not checked.
CheckItem accountsCheckItem(int exitCode, const QByteArray &out, const QString &err);

// "Reaches CLUSTER", one line per reach of the profile (ClusterProfile::reach): whether this login node reaches the
// other cluster's with `ssh ARGUMENTS`, as a straight copy of a checkpoint or code would. One that does not is a
// warning: those copies go through this machine instead. `line` is the reach, `exitCode` and `err` the probe's.
CheckItem reachCheckItem(const QString &line, int exitCode, const QString &err);
// The probe: `ssh ... true` from the login node (quiet: ssh's own words go to stderr).
QString reachProbeCommand(const QString &line);

// What a check found that the cluster's profile keeps (in-job requeue, the partitions, with `now`); false: nothing
// to keep.
bool keepCheckFindings(const QList<CheckItem> &items, ClusterProfile *profile, const QDateTime &now);

} // namespace torchdeck
