#pragma once

#include "core/sshconfig.h"

#include <QByteArray>
#include <QString>

namespace torchdeck {

// Reads an ssh config file and every file it Includes (relative Include paths are taken from
// sshDir, as ssh does for the user's config). A missing top-level file is an empty config.
SshConfig readSshConfig(const QString &path, const QString &sshDir);

// Splits one config line into keyword and arguments: "Key value", "Key=value", "quoted args".
// Returns an empty keyword for blank and comment lines.
struct SshConfigLine {
    QString keyword; // lowercased
    QStringList args;
};
SshConfigLine parseSshConfigLine(const QString &line);

} // namespace torchdeck

namespace torchdeck {

// The user's ssh config: $TORCHDECK_SSH_CONFIG when set (tests, sandboxes), else ~/.ssh/config.
QString userSshConfigPath();
SshConfig readUserSshConfig();
// "'x' is no cluster of ~/.ssh/config; its clusters: a, b" (or that it names none): said of a name the user's
// config does not have.
QString noSuchClusterMessage(const QString &cluster, const SshConfig &config);

} // namespace torchdeck
