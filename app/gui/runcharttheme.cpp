#include "gui/runcharttheme.h"

#include <QAbstractAxis>
#include <QLegend>

namespace torchdeck {

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

QChart::ChartTheme chartThemeFor(const QPalette &palette)
{
    return isDarkPalette(palette) ? QChart::ChartThemeDark : QChart::ChartThemeLight;
}

void applyPalette(QChart *chart, const QPalette &palette)
{
    const QChart::ChartTheme theme = chartThemeFor(palette);
    if (chart->theme() != theme)
        chart->setTheme(theme); // resets series colours, axis pens and fonts
    const QColor text = palette.color(QPalette::WindowText);
    chart->setBackgroundBrush(palette.brush(QPalette::Base));
    chart->setBackgroundRoundness(0);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
    }
}

} // namespace torchdeck
