// Axis ticks on round numbers, their labels in one format per axis, and log decades.
#include "core/metrics/axisticks.h"
#include "testmain.h"

#include <QDateTime>
#include <QTest>

using namespace torchdeck;

namespace {

QStringList words(const char *text)
{
    return QString::fromLatin1(text).split(u' ', Qt::SkipEmptyParts);
}

} // namespace

class TestAxisTicks : public QObject {
    Q_OBJECT
private slots:
    void linear_data();
    void linear();
    void roundSteps_data();
    void roundSteps();
    void degenerateRanges();
    void durations_data();
    void durations();
    void clockTimes();
};

void TestAxisTicks::linear_data()
{
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<int>("maxTicks");
    QTest::addColumn<QStringList>("labels");
    // The run view's old axes: ticks on data values 0.0663 .. 0.177 and 8092 .. 11065.
    QTest::newRow("loss") << 0.0663 << 0.177 << 6 << words("0.08 0.10 0.12 0.14 0.16");
    QTest::newRow("steps, SI") << 8092.0 << 11065.0 << 6 << words("8.5k 9.0k 9.5k 10.0k 10.5k 11.0k");
    QTest::newRow("from zero") << 0.0 << 100.0 << 6 << words("0 20 40 60 80 100");
    QTest::newRow("millions") << 0.0 << 3.2e6 << 5 << words("0M 1M 2M 3M");
    QTest::newRow("negative") << -1.0 << 1.0 << 5 << words("-1.0 -0.5 0.0 0.5 1.0");
    QTest::newRow("tiny") << 0.00012 << 0.00047 << 5 << words("2e-4 3e-4 4e-4");
    QTest::newRow("below 10k: no suffix") << 0.0 << 9000.0 << 4 << words("0 5000");
}

void TestAxisTicks::linear()
{
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(int, maxTicks);
    QFETCH(QStringList, labels);
    const AxisTicks ticks = linearTicks(min, max, maxTicks);
    QCOMPARE(ticks.labels, labels);
    QVERIFY(ticks.values.size() <= maxTicks);
    for (const double value : ticks.values) {
        QVERIFY(value >= min - 1e-12 && value <= max + 1e-12);
        // On a multiple of the step: round numbers, not data values.
        const double multiple = value / ticks.step;
        QVERIFY2(std::abs(multiple - std::round(multiple)) < 1e-6, qPrintable(QString::number(value)));
    }
}

void TestAxisTicks::roundSteps_data()
{
    QTest::addColumn<double>("raw");
    QTest::addColumn<double>("step");
    QTest::newRow("1") << 0.9 << 1.0;
    QTest::newRow("2") << 1.3 << 2.0;
    QTest::newRow("5") << 3.0 << 5.0;
    QTest::newRow("10") << 7.0 << 10.0;
    QTest::newRow("exact") << 0.02 << 0.02;
    QTest::newRow("large") << 594.6 << 1000.0;
}

void TestAxisTicks::roundSteps()
{
    QFETCH(double, raw);
    QFETCH(double, step);
    QCOMPARE(roundStep(raw), step);
}

void TestAxisTicks::degenerateRanges()
{
    const AxisTicks flat = linearTicks(0.5, 0.5, 5);
    QVERIFY(!flat.values.isEmpty());
    QVERIFY(flat.values.constFirst() <= 0.5 && flat.values.constLast() >= 0.5);
    QVERIFY(linearTicks(qQNaN(), 1, 5).values.isEmpty());
    QCOMPARE(linearTicks(1, 0, 3).labels, linearTicks(0, 1, 3).labels);
}

void TestAxisTicks::durations_data()
{
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<int>("maxTicks");
    QTest::addColumn<QStringList>("labels");
    QTest::newRow("seconds") << 0.0 << 50.0 << 6 << words("0 10s 20s 30s 40s 50s");
    QTest::newRow("minutes") << 30.0 << 1000.0 << 5 << words("5m 10m 15m");
    QTest::newRow("hours") << 0.0 << 5.5 * 3600 << 4 << words("0 2h 4h");
    QTest::newRow("days") << 3600.0 << 3 * 86400.0 << 4 << words("1d 2d 3d");
}

void TestAxisTicks::durations()
{
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(int, maxTicks);
    QFETCH(QStringList, labels);
    QCOMPARE(durationTicks(min, max, maxTicks).labels, labels);
}

void TestAxisTicks::clockTimes()
{
    // Whole local minutes and hours, whatever the time zone.
    const QDateTime start(QDate(2026, 11, 25), QTime(13, 52, 10));
    const double t0 = double(start.toSecsSinceEpoch());
    QCOMPARE(clockTicks(t0, t0 + 3 * 3600, 4).labels, words("14:00 15:00 16:00"));
    QCOMPARE(clockTicks(t0, t0 + 50, 6).labels, words("13:52:10 13:52:20 13:52:30 13:52:40 13:52:50 13:53:00"));
    QCOMPARE(clockTicks(t0, t0 + 2.5 * 86400, 3).labels.constFirst(), QStringLiteral("26 Nov 00:00"));
}

TORCHDECK_TEST_MAIN(TestAxisTicks)
#include "tst_axisticks.moc"
