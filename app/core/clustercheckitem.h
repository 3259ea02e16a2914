#pragma once

#include "core/schedulerkind.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

namespace torchdeck {

// One line of "Check cluster" (torchdeck check and the window's checklist).
struct CheckItem {
    QString name; // "Shell quoting", "LibTorch", ...
    bool ok = false;
    QString detail;       // what was found, or what is wrong and what to do
    bool warning = false; // ok, but with something the user should know before relying on it
    QString finding = {}; // what a front keeps of it (in-job requeue: allowed|refused; "Partitions [...]" as JSON)
};

// What a check looks at: the cluster's profile, or what `torchdeck check` overrides of it.
struct ClusterCheckSettings {
    SchedulerKind scheduler = SchedulerKind::Slurm;
    QString workDirectory = QStringLiteral("~/.torchdeck");
    QString libtorchPrefix; // configured CMAKE_PREFIX_PATH; empty: look for one
    QStringList moduleLines;
    // Submit a tiny job that requeues itself, to learn whether the cluster allows it (Slurm): the profile's
    // partition and account go to it.
    bool probeRequeue = false;
    QString partition;
    QString account;
    QStringList reach; // CLUSTER=SSH ARGUMENTS (ClusterProfile::reach): each is tried from the login node
};

} // namespace torchdeck

Q_DECLARE_METATYPE(torchdeck::CheckItem)
