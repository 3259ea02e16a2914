// TensorBoard's debiased exponential moving average, on data tables.
#include "core/metrics/smoothing.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestSmoothing : public QObject {
    Q_OBJECT
private slots:
    void debiasedAverage_data();
    void debiasedAverage();
    void firstPointIsItsOwnValue();
    void constantStaysConstant();
    void nonFiniteValuesPassThrough();
    void weightIsClamped();
};

namespace {

QList<QPointF> points(const QList<double> &ys)
{
    QList<QPointF> result;
    for (qsizetype i = 0; i < ys.size(); ++i)
        result.append({double(i), ys.at(i)});
    return result;
}

} // namespace

void TestSmoothing::debiasedAverage_data()
{
    QTest::addColumn<double>("weight");
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<QList<double>>("expected");
    // Worked by hand: last = last * w + (1 - w) * y; shown = last / (1 - w^n).
    QTest::newRow("0.5") << 0.5 << QList<double>{1, 3, 5} << QList<double>{1, 1.75 / 0.75, 3.375 / 0.875};
    QTest::newRow("0.9 step") << 0.9 << QList<double>{0, 10} << QList<double>{0, 1.0 / 0.19};
    QTest::newRow("raw at 0") << 0.0 << QList<double>{4, 1, 7} << QList<double>{4, 1, 7};
}

void TestSmoothing::debiasedAverage()
{
    QFETCH(double, weight);
    QFETCH(QList<double>, values);
    QFETCH(QList<double>, expected);
    const QList<QPointF> result = smoothed(points(values), weight);
    QCOMPARE(result.size(), expected.size());
    for (qsizetype i = 0; i < result.size(); ++i) {
        QCOMPARE(result.at(i).x(), double(i));
        QVERIFY2(qAbs(result.at(i).y() - expected.at(i)) < 1e-12,
                 qPrintable(QStringLiteral("%1: %2 vs %3").arg(i).arg(result.at(i).y()).arg(expected.at(i))));
    }
}

void TestSmoothing::firstPointIsItsOwnValue()
{
    // Without the debiasing the first point would be (1 - w) * y: 0.01 * 2.5 at w = 0.99.
    QCOMPARE(smoothed(points({2.5, 1.0}), 0.99).constFirst().y(), 2.5);
}

void TestSmoothing::constantStaysConstant()
{
    for (const QPointF &point : smoothed(points({0.1, 0.1, 0.1, 0.1}), 0.95))
        QCOMPARE(point.y(), 0.1);
}

void TestSmoothing::nonFiniteValuesPassThrough()
{
    const QList<QPointF> result = smoothed(points({1, qQNaN(), 3}), 0.5);
    QVERIFY(qIsNaN(result.at(1).y()));
    QCOMPARE(result.at(2).y(), (0.25 + 1.5) / 0.75); // the NaN is not averaged in
}

void TestSmoothing::weightIsClamped()
{
    QCOMPARE(clampSmoothingWeight(1.5), 0.99);
    QCOMPARE(clampSmoothingWeight(-1), 0.0);
    QCOMPARE(clampSmoothingWeight(qQNaN()), 0.0);
}

TORCHDECK_TEST_MAIN(TestSmoothing)
#include "tst_smoothing.moc"
