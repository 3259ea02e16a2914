// MetricSeries' min/max-preserving decimation: one pass over the visible points in [x0, x1].
#include "core/metrics/metricseries.h"

#include <algorithm>
#include <cmath>

namespace torchdeck {

QList<SeriesBucket> MetricSeries::buckets(double x0, double x1, int columns) const
{
    QList<SeriesBucket> out;
    if (columns <= 0 || !(x1 >= x0) || !std::isfinite(x0) || !std::isfinite(x1))
        return out;
    const double scale = x1 > x0 ? columns / (x1 - x0) : 0.0;
    const int lastColumn = columns - 1;
    const auto [firstSeg, firstRow] = lowerBound(x0);
    const auto [endSeg, endRow] = lowerBound(std::nextafter(x1, HUGE_VAL));
    const double *xs = m_x.constData();
    const double *ys = m_y.constData();
    SeriesBucket b;
    b.column = -1;
    for (qsizetype s = firstSeg; s < m_visible.size() && s <= endSeg; ++s) {
        const qsizetype from = s == firstSeg ? firstRow : m_visible[s].begin;
        const qsizetype to = s == endSeg ? endRow : m_visible[s].end;
        for (qsizetype row = from; row < to; ++row) {
            const double x = xs[row];
            const double y = ys[row];
            const int column = std::min(static_cast<int>((x - x0) * scale), lastColumn);
            if (column != b.column) {
                if (b.column >= 0)
                    out.append(b);
                b.column = column;
                b.count = 1;
                b.first = b.last = b.min = b.max = QPointF(x, y);
                b.minBeforeMax = true;
                continue;
            }
            ++b.count;
            b.last = QPointF(x, y);
            if (y < b.min.y()) {
                b.min = b.last;
                b.minBeforeMax = false; // the max was seen earlier
            } else if (y > b.max.y()) {
                b.max = b.last;
                b.minBeforeMax = true;
            }
        }
    }
    if (b.column >= 0)
        out.append(b);
    return out;
}

QList<QPointF> MetricSeries::decimated(double x0, double x1, int columns) const
{
    QList<QPointF> line;
    const QList<SeriesBucket> bs = buckets(x0, x1, columns);
    line.reserve(bs.size() * 4 + 2);

    // The neighbours just outside the range, so that the line reaches the plot's edges.
    const auto [segBefore, rowBefore] = lowerBound(x0);
    if (!m_visible.isEmpty()) {
        const bool atSegmentStart = segBefore == m_visible.size() || rowBefore == m_visible[segBefore].begin;
        qsizetype prev = rowBefore - 1;
        if (atSegmentStart)
            prev = segBefore > 0 ? m_visible[segBefore - 1].end - 1 : -1;
        if (prev >= 0)
            line.append({m_x[prev], m_y[prev]});
    }
    auto add = [&line](const QPointF &p) {
        if (line.isEmpty() || line.last() != p)
            line.append(p);
    };
    for (const SeriesBucket &b : bs) {
        add(b.first);
        add(b.minBeforeMax ? b.min : b.max);
        add(b.minBeforeMax ? b.max : b.min);
        add(b.last);
    }
    if (x1 >= x0) {
        // The first visible point after x1.
        auto [seg, row] = lowerBound(std::nextafter(x1, HUGE_VAL));
        if (seg < m_visible.size())
            line.append({m_x[row], m_y[row]});
    }
    return line;
}

} // namespace torchdeck
