#pragma once

#include <QString>

// The few ANSI/VT100 sequences the dashboard writes; every styled span closes itself on the same line.
namespace torchdeck::term::ansi {

inline constexpr int kNoColor = -1; // the terminal's default foreground

inline const QString kReset = QStringLiteral("\x1b[0m");
inline const QString kBold = QStringLiteral("\x1b[1m");
inline const QString kDim = QStringLiteral("\x1b[2m");
inline const QString kNormalIntensity = QStringLiteral("\x1b[22m");
inline const QString kReverse = QStringLiteral("\x1b[7m");
inline const QString kNoReverse = QStringLiteral("\x1b[27m");
inline const QString kDefaultColor = QStringLiteral("\x1b[39m");
inline const QString kCursorHome = QStringLiteral("\x1b[H");
inline const QString kClearToEndOfLine = QStringLiteral("\x1b[K");

// Foreground from the 256-colour palette.
inline QString color(int index)
{
    return index < 0 ? kDefaultColor : QString(u"\x1b[38;5;" + QString::number(index) + u'm');
}

} // namespace torchdeck::term::ansi
