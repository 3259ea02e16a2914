#include "term/render/barchart.h"

#include "term/render/numberformat.h"
#include "term/render/styledline.h"
#include "term/render/textwidth.h"
#include "term/termtr.h"

#include <algorithm>
#include <cmath>

namespace torchdeck::term {

namespace {

constexpr char16_t kFullBlock = 0x2588;     // █
constexpr char16_t kOneEighthBase = 0x2590; // U+2590 - k: the left k/8 block (▏ is 1/8, ▉ is 7/8)

QString bar(double eighths)
{
    const auto total = static_cast<qsizetype>(std::max(0.0, eighths));
    QString out(total / 8, QChar(kFullBlock));
    if (total % 8)
        out.append(QChar(char16_t(kOneEighthBase - total % 8)));
    return out;
}

} // namespace

QStringList renderBarChart(const MetricSeries &series, const BarChartOptions &options, int cols, int rows)
{
    cols = std::max(cols, 0);
    rows = std::max(rows, 0);
    QStringList out;
    if (rows == 0)
        return out;
    const QList<QPointF> all = series.visiblePoints(); // one point an epoch: small
    const QList<QPointF> shown = all.mid(std::max<qsizetype>(0, all.size() - (rows - 1)));

    StyledLine title(cols, options.useColor);
    title.add(terminalSafe(options.title), {ansi::kNoColor, true});
    if (all.isEmpty())
        title.add(Tr::tr("  none finished yet"), {ansi::kNoColor, false, true});
    else if (shown.size() < all.size())
        title.add(Tr::tr("  last %1 of %2").arg(shown.size()).arg(all.size()), {ansi::kNoColor, false, true});
    out.append(title.finish());

    QStringList labels, values;
    int labelWidth = 0, valueWidth = 0;
    double maxValue = 0;
    for (const QPointF &p : shown) {
        labels.append(formatCompact(p.x(), 6));
        values.append(QString(formatCompact(p.y()) + terminalSafe(options.unit)));
        labelWidth = std::max(labelWidth, displayWidth(labels.last()));
        valueWidth = std::max(valueWidth, displayWidth(values.last()));
        maxValue = std::max(maxValue, p.y());
    }
    const int barCells = cols - labelWidth - valueWidth - 2;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        StyledLine line(cols, options.useColor);
        line.add(padLeft(labels[i], labelWidth), {ansi::kNoColor, false, true});
        line.addSpaces(1);
        if (barCells > 0) {
            const double eighths = maxValue > 0 ? shown[i].y() / maxValue * barCells * 8 : 0;
            const QString b = bar(shown[i].y() > 0 ? std::max(1.0, std::round(eighths)) : 0);
            line.add(b, {options.color});
            line.addSpaces(barCells - displayWidth(b) + 1);
        }
        line.add(padLeft(values[i], valueWidth));
        out.append(line.finish());
    }
    while (out.size() < rows)
        out.append(QString(cols, u' '));
    return out;
}

} // namespace torchdeck::term
