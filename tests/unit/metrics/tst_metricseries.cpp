#include "core/metrics/metricseries.h"
#include "testmain.h"

#include <QTest>
#include <cmath>

using torchdeck::MetricSeries;
using torchdeck::SeriesBucket;

class TestMetricSeries : public QObject {
    Q_OBJECT
private slots:
    void appendKeepsArrivalOrder();
    void resumeDiscardsAndKeeps();
    void pointAtOrBeforeTheEndSupersedes();
    void attemptsByRow();
    void nonFiniteIgnored();
    void bucketsKeepSpikes();
    void bucketsOverSegments();
    void decimatedRunsToTheEdges();
    void decimatedIsSmallAndExactWhenSparse();
    void bounds();
};

namespace {
MetricSeries ramp(int n, int attempt = 0)
{
    MetricSeries s;
    for (int i = 1; i <= n; ++i)
        s.append(i, 1.0 / i, attempt);
    return s;
}
} // namespace

void TestMetricSeries::appendKeepsArrivalOrder()
{
    const MetricSeries s = ramp(5);
    QCOMPARE(s.size(), 5);
    QCOMPARE(s.visibleCount(), 5);
    QCOMPARE(s.x(4), 5.0);
    QCOMPARE(s.y(1), 0.5);
    QVERIFY(!s.isDiscarded(0));
    QVERIFY(s.discardedPoints().isEmpty());
}

// Attempt 0 ran to step 27, its checkpoint was at step 20; attempt 1 resumes from there.
void TestMetricSeries::resumeDiscardsAndKeeps()
{
    MetricSeries s = ramp(27, 0);
    const MetricSeries::Rows gone = s.discardAfter(20);
    QCOMPARE(gone.first, 20);
    QCOMPARE(gone.last, 26);
    for (int step = 21; step <= 30; ++step)
        QVERIFY(s.append(step, 2.0, 1).isEmpty());
    QCOMPARE(s.size(), 37);
    QCOMPARE(s.visibleCount(), 30);
    for (qsizetype row = 0; row < s.size(); ++row)
        QCOMPARE(s.isDiscarded(row), row >= 20 && row < 27);
    const QList<QPointF> visible = s.visiblePoints();
    for (int i = 0; i < visible.size(); ++i)
        QCOMPARE(visible[i].x(), i + 1.0); // one continuous curve, no step twice
    QCOMPARE(visible[25].y(), 2.0);
    QCOMPARE(s.discardedPoints().size(), 7);
    QCOMPARE(s.discardedPoints().first(), QPointF(21, 1.0 / 21));
    // Nothing after the resume point: nothing to discard.
    QVERIFY(s.discardAfter(30).isEmpty());
    // A second resume further back discards points of both attempts; the range covers them all.
    const MetricSeries::Rows again = s.discardAfter(10);
    QCOMPARE(again.first, 10);
    QCOMPARE(again.last, 36);
    QCOMPARE(s.visibleCount(), 10);
}

void TestMetricSeries::pointAtOrBeforeTheEndSupersedes()
{
    MetricSeries s = ramp(10);
    const MetricSeries::Rows gone = s.append(8, 5.0, 0);
    QCOMPARE(gone.first, 7);
    QCOMPARE(gone.last, 9);
    QCOMPARE(s.visibleCount(), 8);
    QPointF last;
    QVERIFY(s.lastVisible(&last));
    QCOMPARE(last, QPointF(8, 5.0));
    // The same x again: the newer point wins.
    QCOMPARE(s.append(8, 6.0, 0).first, 10);
    QVERIFY(s.lastVisible(&last));
    QCOMPARE(last.y(), 6.0);
}

void TestMetricSeries::attemptsByRow()
{
    MetricSeries s = ramp(3, 0);
    s.discardAfter(1);
    s.append(2, 1, 1);
    s.append(3, 1, 1);
    s.append(4, 1, 2);
    QCOMPARE(s.attempt(0), 0);
    QCOMPARE(s.attempt(2), 0);
    QCOMPARE(s.attempt(3), 1);
    QCOMPARE(s.attempt(5), 2);
}

void TestMetricSeries::nonFiniteIgnored()
{
    MetricSeries s;
    s.append(1, std::nan(""), 0);
    s.append(INFINITY, 1, 0);
    QCOMPARE(s.size(), 0);
}

void TestMetricSeries::bucketsKeepSpikes()
{
    MetricSeries s;
    for (int i = 0; i < 100000; ++i)
        s.append(i, i == 51234 ? 100.0 : (i == 70000 ? -50.0 : 1.0), 0);
    const QList<SeriesBucket> bs = s.buckets(0, 99999, 100);
    QCOMPARE(bs.size(), 100);
    qsizetype total = 0;
    for (const SeriesBucket &b : bs)
        total += b.count;
    QCOMPARE(total, 100000);
    const SeriesBucket &spike = bs[51];
    QCOMPARE(spike.max, QPointF(51234, 100.0));
    QCOMPARE(spike.min.y(), 1.0);
    QCOMPARE(bs[70].min, QPointF(70000, -50.0));
    QCOMPARE(bs[0].first, QPointF(0, 1.0));
    QCOMPARE(bs[99].last, QPointF(99999, 1.0));
    const QList<QPointF> line = s.decimated(0, 99999, 100);
    QVERIFY(line.size() <= 4 * 100 + 2);
    QVERIFY(line.contains(QPointF(51234, 100.0)));
    QVERIFY(line.contains(QPointF(70000, -50.0)));
    for (int i = 1; i < line.size(); ++i)
        QVERIFY(line[i].x() > line[i - 1].x());
}

void TestMetricSeries::bucketsOverSegments()
{
    MetricSeries s = ramp(100, 0);
    s.discardAfter(40);
    for (int i = 41; i <= 200; ++i)
        s.append(i, 7.0, 1);
    const QList<SeriesBucket> bs = s.buckets(1, 200, 4);
    QCOMPARE(bs.size(), 4);
    qsizetype total = 0;
    for (const SeriesBucket &b : bs)
        total += b.count;
    QCOMPARE(total, 200); // the discarded 41..100 of attempt 0 are not drawn
    // Bucket 0 holds steps 1..50: attempt 0's 1..40, then attempt 1's 41..50. Attempt 0's smaller, discarded
    // values after step 40 are not its minimum.
    QCOMPARE(bs[0].first, QPointF(1, 1.0));
    QCOMPARE(bs[0].min, QPointF(40, 1.0 / 40));
    QCOMPARE(bs[0].max, QPointF(41, 7.0));
    QVERIFY(bs[0].minBeforeMax);
    QCOMPARE(bs[3].min.y(), 7.0);
    QVERIFY(s.buckets(300, 400, 10).isEmpty());
    QVERIFY(s.buckets(10, 5, 10).isEmpty());
}

void TestMetricSeries::decimatedRunsToTheEdges()
{
    const MetricSeries s = ramp(1000);
    const QList<QPointF> line = s.decimated(100.5, 200.5, 10);
    QCOMPARE(line.first(), QPointF(100, 1.0 / 100));
    QCOMPARE(line.last(), QPointF(201, 1.0 / 201));
    const QList<QPointF> tail = s.decimated(999.5, 2000, 10);
    QCOMPARE(tail, (QList<QPointF>{{999, 1.0 / 999}, {1000, 1.0 / 1000}}));
    const QList<QPointF> beyond = s.decimated(1500, 2000, 10);
    QCOMPARE(beyond, QList<QPointF>{QPointF(1000, 1.0 / 1000)});
}

void TestMetricSeries::decimatedIsSmallAndExactWhenSparse()
{
    const MetricSeries s = ramp(50);
    const QList<QPointF> line = s.decimated(1, 50, 800);
    QCOMPARE(line, s.visiblePoints());
}

void TestMetricSeries::bounds()
{
    MetricSeries s = ramp(10);
    auto b = s.visibleBounds();
    QVERIFY(b.valid);
    QCOMPARE(b.xMin, 1.0);
    QCOMPARE(b.xMax, 10.0);
    QCOMPARE(b.yMax, 1.0);
    QCOMPARE(b.yMin, 0.1);
    s.append(11, 9.0, 0);
    QCOMPARE(s.visibleBounds().yMax, 9.0);
    s.discardAfter(10);
    QCOMPARE(s.visibleBounds().yMax, 1.0);
    s.clear();
    QVERIFY(!s.visibleBounds().valid);
}

TORCHDECK_TEST_MAIN(TestMetricSeries)
#include "tst_metricseries.moc"
