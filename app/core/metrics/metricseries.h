#pragma once

#include <QList>
#include <QPointF>

namespace torchdeck {

// One pixel column of a decimated series: the points that keep its shape (spikes stay visible).
struct SeriesBucket {
    int column = 0;      // 0 .. buckets-1
    qsizetype count = 0; // points that fell into it
    QPointF first, last, min, max;
    bool minBeforeMax = true;
};

struct SeriesBounds {
    double xMin = 0, xMax = 0, yMin = 0, yMax = 0;
    bool valid = false; // false: no visible point
};

// An append-only series of (x, y) points, x = global step or epoch. Rows keep their arrival order and are
// never removed. The visible curve is x-increasing: a point at or before its end, or a resume from a
// checkpoint, supersedes the later points, which stay as rows marked discarded. Memory: 16 bytes a point.
class MetricSeries {
public:
    struct Rows {
        qsizetype first = -1; // inclusive; -1: none
        qsizetype last = -1;
        bool isEmpty() const { return first < 0; }
    };

    qsizetype size() const { return m_x.size(); }
    bool isEmpty() const { return m_x.isEmpty(); }
    double x(qsizetype row) const { return m_x.at(row); }
    double y(qsizetype row) const { return m_y.at(row); }
    int attempt(qsizetype row) const;
    bool isDiscarded(qsizetype row) const;

    // Returns the rows this append marked discarded. Points with a non-finite x or y are ignored.
    Rows append(double x, double y, int attempt);
    // A resume from a checkpoint at x: visible points after x become discarded.
    Rows discardAfter(double x);
    void clear();
    void reserve(qsizetype points);

    qsizetype visibleCount() const;
    QList<QPointF> visiblePoints() const;
    QList<QPointF> discardedPoints() const;
    SeriesBounds visibleBounds() const;
    bool lastVisible(QPointF *point) const;

    // Min/max-preserving decimation of the visible curve over [x0, x1] into `columns` buckets.
    QList<SeriesBucket> buckets(double x0, double x1, int columns) const;
    // The same as a polyline for a chart: per bucket first, min, max, last in x order, plus the nearest
    // points outside [x0, x1] so the line runs to the edges. At most 4 * columns + 2 points.
    QList<QPointF> decimated(double x0, double x1, int columns) const;

private:
    struct Segment {
        qsizetype begin = 0; // rows [begin, end) are visible
        qsizetype end = 0;
    };
    struct AttemptStart {
        qsizetype row = 0;
        int attempt = 0;
    };
    Rows discardFrom(double x, bool inclusive);
    // First visible position with x >= value: (segment index, row); segment == m_visible.size() at the end.
    std::pair<qsizetype, qsizetype> lowerBound(double value) const;

    QList<double> m_x;
    QList<double> m_y;
    QList<Segment> m_visible;       // in x order, non-overlapping, rows increasing
    QList<AttemptStart> m_attempts; // where each attempt's rows begin
    mutable SeriesBounds m_bounds;
    mutable bool m_boundsDirty = true;
};

} // namespace torchdeck
