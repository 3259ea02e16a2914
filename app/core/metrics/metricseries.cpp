#include "core/metrics/metricseries.h"

#include <algorithm>
#include <cmath>

namespace torchdeck {

int MetricSeries::attempt(qsizetype row) const
{
    auto it = std::upper_bound(m_attempts.cbegin(), m_attempts.cend(), row,
                               [](qsizetype r, const AttemptStart &a) { return r < a.row; });
    return it == m_attempts.cbegin() ? 0 : std::prev(it)->attempt;
}

bool MetricSeries::isDiscarded(qsizetype row) const
{
    auto it = std::upper_bound(m_visible.cbegin(), m_visible.cend(), row,
                               [](qsizetype r, const Segment &s) { return r < s.begin; });
    return it == m_visible.cbegin() || row >= std::prev(it)->end;
}

MetricSeries::Rows MetricSeries::append(double x, double y, int attempt)
{
    if (!std::isfinite(x) || !std::isfinite(y))
        return {};
    Rows discarded;
    QPointF last;
    if (lastVisible(&last) && x <= last.x())
        discarded = discardFrom(x, true);
    const qsizetype row = m_x.size();
    m_x.append(x);
    m_y.append(y);
    if (m_attempts.isEmpty() || m_attempts.last().attempt != attempt)
        m_attempts.append({row, attempt});
    if (!m_visible.isEmpty() && m_visible.last().end == row)
        ++m_visible.last().end;
    else
        m_visible.append({row, row + 1});
    if (!m_boundsDirty && m_bounds.valid) {
        m_bounds.xMax = x;
        m_bounds.yMin = std::min(m_bounds.yMin, y);
        m_bounds.yMax = std::max(m_bounds.yMax, y);
    } else {
        m_boundsDirty = true;
    }
    return discarded;
}

MetricSeries::Rows MetricSeries::discardAfter(double x)
{
    return discardFrom(x, false);
}

MetricSeries::Rows MetricSeries::discardFrom(double x, bool inclusive)
{
    Rows rows;
    while (!m_visible.isEmpty()) {
        Segment &seg = m_visible.last();
        const double *begin = m_x.constData() + seg.begin;
        const double *end = m_x.constData() + seg.end;
        const double *cut = inclusive ? std::lower_bound(begin, end, x) : std::upper_bound(begin, end, x);
        if (cut == end)
            break;
        if (rows.isEmpty())
            rows.last = seg.end - 1;
        rows.first = seg.begin + (cut - begin);
        if (cut != begin) {
            seg.end = rows.first;
            break;
        }
        m_visible.removeLast();
    }
    if (!rows.isEmpty())
        m_boundsDirty = true;
    return rows;
}

void MetricSeries::clear()
{
    m_x.clear();
    m_y.clear();
    m_visible.clear();
    m_attempts.clear();
    m_boundsDirty = true;
}

void MetricSeries::reserve(qsizetype points)
{
    m_x.reserve(points);
    m_y.reserve(points);
}

qsizetype MetricSeries::visibleCount() const
{
    qsizetype n = 0;
    for (const Segment &s : m_visible)
        n += s.end - s.begin;
    return n;
}

QList<QPointF> MetricSeries::visiblePoints() const
{
    QList<QPointF> points;
    points.reserve(visibleCount());
    for (const Segment &s : m_visible) {
        for (qsizetype r = s.begin; r < s.end; ++r)
            points.append({m_x[r], m_y[r]});
    }
    return points;
}

QList<QPointF> MetricSeries::discardedPoints() const
{
    QList<QPointF> points;
    qsizetype row = 0;
    for (qsizetype i = 0; i <= m_visible.size(); ++i) {
        const qsizetype gapEnd = i < m_visible.size() ? m_visible[i].begin : m_x.size();
        for (; row < gapEnd; ++row)
            points.append({m_x[row], m_y[row]});
        if (i < m_visible.size())
            row = m_visible[i].end;
    }
    return points;
}

bool MetricSeries::lastVisible(QPointF *point) const
{
    if (m_visible.isEmpty())
        return false;
    const qsizetype row = m_visible.last().end - 1;
    *point = {m_x[row], m_y[row]};
    return true;
}

SeriesBounds MetricSeries::visibleBounds() const
{
    if (!m_boundsDirty)
        return m_bounds;
    SeriesBounds b;
    for (const Segment &s : m_visible) {
        if (s.begin == s.end)
            continue;
        const auto [lo, hi] = std::minmax_element(m_y.cbegin() + s.begin, m_y.cbegin() + s.end);
        if (!b.valid) {
            b = {m_x[s.begin], m_x[s.end - 1], *lo, *hi, true};
        } else {
            b.xMax = m_x[s.end - 1];
            b.yMin = std::min(b.yMin, *lo);
            b.yMax = std::max(b.yMax, *hi);
        }
    }
    m_bounds = b;
    m_boundsDirty = false;
    return b;
}

std::pair<qsizetype, qsizetype> MetricSeries::lowerBound(double value) const
{
    // The first segment whose last x is >= value holds the answer.
    auto seg = std::lower_bound(m_visible.cbegin(), m_visible.cend(), value,
                                [this](const Segment &s, double v) { return m_x[s.end - 1] < v; });
    if (seg == m_visible.cend())
        return {m_visible.size(), m_x.size()};
    const double *begin = m_x.constData() + seg->begin;
    const double *hit = std::lower_bound(begin, m_x.constData() + seg->end, value);
    return {seg - m_visible.cbegin(), seg->begin + (hit - begin)};
}

} // namespace torchdeck
