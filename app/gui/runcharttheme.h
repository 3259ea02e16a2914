#pragma once

#include <QChart>
#include <QPalette>

namespace torchdeck {

// Charts follow the widget palette: Qt Charts' dark theme under a dark palette (window text lighter than
// the window), the light one otherwise, with the chart background and labels taken from the palette so a
// chart sits in the window like any other widget. Part of the Qt Charts corner of the GUI (see runcharts.h).
bool isDarkPalette(const QPalette &palette);
QChart::ChartTheme chartThemeFor(const QPalette &palette);
void applyPalette(QChart *chart, const QPalette &palette);

} // namespace torchdeck
