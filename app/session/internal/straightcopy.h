#pragma once

#include <QList>
#include <QString>

namespace torchdeck {

inline constexpr int kStraightCopyDeadlineMs = 3600000; // some GiB between two sites

// One file copied from another cluster's login node to this one's (sessionstraightcopy.cpp).
struct StraightFile {
    QString from;   // absolute, there
    QString to;     // absolute, here
    QString sha256; // what it must hash to here before it takes its name
    int mode = 0600;
    QString label; // how messages name it
};

// The login-node command that copies each file with `ssh -o BatchMode=yes <reach> cat` into a partial file beside its
// target, checks its SHA-256 and gives it its mode and name; it stops, leaving nothing half-copied, at the first that
// cannot be fetched or differs. `reach` is the profile's (ClusterProfile::reach): the user's own ssh arguments.
QString straightCopyCommand(const QString &reach, const QList<StraightFile> &files);

} // namespace torchdeck
