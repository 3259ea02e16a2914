#pragma once

#include <QPalette>
#include <QString>

class QMenu;
class QWidget;

namespace torchdeck {

// The window's colours: the system's palette, or torchdeck's own light or dark one (Fusion style, so every
// widget takes the palette). The charts and the log follow whichever is set.
enum class ColorScheme { System, Light, Dark };

QPalette lightPalette();
QPalette darkPalette();
// Sets the application's style and palette; remembered in QSettings by the caller.
void applyColorScheme(ColorScheme scheme);
// System / Light / Dark, the saved choice checked and applied; a choice is applied and saved (QSettings).
QMenu *colorSchemeMenu(QWidget *parent);
ColorScheme colorSchemeFromName(const QString &name); // "light", "dark", anything else: System
QString colorSchemeName(ColorScheme scheme);

} // namespace torchdeck
