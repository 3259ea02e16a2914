#pragma once

#include <QString>

namespace torchdeck {

// The names the desktop entry, the AppStream metainfo, the icons and the settings share
// (resources/org.torchdeck.torchdeck.*): window managers match windows to the entry by the desktop file name.
QString desktopFileName();  // org.torchdeck.torchdeck
QString torchdeckVersion(); // 0.1.0: the project's, whatever program runs

// Organization, application name and version on the running QCoreApplication (both fronts).
void setApplicationIdentity();

// Where torchdeck keeps its files; these stay where they were before the organization name was set.
QString configDirectory(); // $TORCHDECK_CONFIG_DIR, else ~/.config/torchdeck: clusters, templates, settings
QString dataDirectory();   // $TORCHDECK_DATA_DIR, else ~/.local/share/torchdeck: the run store

// Settings written before the application had an organization (QSettings kept them in
// ~/.config/Unknown Organization/torchdeck.conf) move to the current file once, key by key.
struct SettingsMigration {
    QString from;  // the old file, empty when there was none
    int moved = 0; // keys carried over
    QString error; // non-empty: the old file is kept
};
SettingsMigration migrateLegacySettings();

} // namespace torchdeck
