#pragma once

#include <QString>

namespace torchdeck {

// "Keep watching my runs after I log in": the agent started with the user's session, by a systemd user unit
// where a user manager runs, else by an XDG autostart entry. Off by default; on writes the file, off removes it.
enum class AutostartKind { SystemdUser, XdgAutostart };

struct AutostartFile {
    AutostartKind kind = AutostartKind::XdgAutostart;
    QString path;
    QString text;
};

// Whether this login has a systemd user manager ($XDG_RUNTIME_DIR/systemd/private).
bool hasUserManager();
// The file for this machine: the agent of `executable`, for the run store of `dataDirectory` when that is not
// the default (the unit then sets TORCHDECK_DATA_DIR).
AutostartFile autostartFile(AutostartKind kind, const QString &executable, const QString &dataDirectory);

// Writes (on) or removes (off) the file of the kind this machine uses, and the other kind's too when off;
// a systemd unit is enabled by its default.target.wants link. An error says what failed.
[[nodiscard]] QString setAutostart(bool enabled, const QString &executable, const QString &dataDirectory);
// The installed file, empty when autostart is off.
QString installedAutostart();

} // namespace torchdeck
