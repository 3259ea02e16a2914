#pragma once

#include "core/profiles/clusterprofile.h"

#include <QList>

namespace torchdeck {

// One problem of a profile as the user edits it, named by its JSON key ("name" for the alias).
struct ProfileError {
    QString field;
    QString message;
};

// What makes a profile unusable before anything is sent to the cluster: a missing or unusable alias, an
// empty work directory, a relative LibTorch or trainer path, a build job without a scheduler.
QList<ProfileError> validateClusterProfile(const ClusterProfile &profile);

} // namespace torchdeck
