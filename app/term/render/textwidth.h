#pragma once

#include <QString>

namespace torchdeck::term {

// Terminal cells taken by one code point: 0 for combining marks and controls, 2 for East Asian wide and
// emoji, else 1 (braille, box drawing and block elements are 1).
int charWidth(char32_t c);
// Cells taken by a text, ANSI CSI sequences (ESC [ ... final) skipped.
int displayWidth(QStringView text);

// Untrusted text (run names, log lines) made safe to print: escape sequences removed, tabs and newlines
// become spaces, other control characters '?'.
QString terminalSafe(QStringView text);
// The text without its ANSI escape sequences (what a terminal would show, for tests and captures).
QString stripAnsi(QStringView text);
// Plain text cut to at most `width` cells, ending with an ellipsis when something was cut.
QString fitToWidth(QStringView text, int width);
// Plain text cut and padded with spaces to exactly `width` cells, on the right or on the left.
QString padRight(QStringView text, int width);
QString padLeft(QStringView text, int width);

} // namespace torchdeck::term
