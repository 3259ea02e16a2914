#include "core/metrics/metricslineparser.h"
#include "core/metrics/runseries.h"
#include "core/metrics/slowestrank.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

// The trainer's per-rank keys (rank_compute_s, rank_wait_s) read from a step line, kept by the series, and the
// slowest rank named against the median.
class TestSlowestRank : public QObject {
    Q_OBJECT
private slots:
    void readFromTheStepLine();
    void malformedArrays();
    void slowest_data();
    void slowest();
};

void TestSlowestRank::readFromTheStepLine()
{
    MetricsLineParser parser;
    const ParsedMetricsLine line = parser.parse(
        R"({"schema":1,"event":"step","time":5.5,"epoch":1,"step":8,"loss":0.2,"rank_compute_s":[0.001,0.0113,null],"rank_wait_s":[0.0108,0.0004,0.001]})");
    QCOMPARE(line.status, MetricsLineStatus::Event);
    QCOMPARE(line.event.rankComputeSeconds.size(), 3);
    QCOMPARE(line.event.rankComputeSeconds.at(1), 0.0113);
    QVERIFY(!MetricEvent::has(line.event.rankComputeSeconds.at(2)));
    QCOMPARE(line.event.rankWaitSeconds.at(0), 0.0108);
    RunSeries series;
    QVERIFY(series.apply(line.event).info);
    QCOMPARE(series.info().rankComputeSeconds.size(), 3);
    QCOMPARE(series.info().rankComputeSeconds.at(1), 0.0113);
    const SlowestRank slowest = slowestRank(series.info().rankComputeSeconds);
    QCOMPARE(slowest.rank, 1);
}

void TestSlowestRank::malformedArrays()
{
    MetricsLineParser parser;
    QCOMPARE(parser.parse(R"({"schema":1,"event":"step","step":8,"rank_compute_s":["a"]})").status,
             MetricsLineStatus::Malformed);
    QCOMPARE(parser.parse(R"({"schema":1,"event":"step","step":8,"rank_compute_s":3})").status,
             MetricsLineStatus::Malformed);
}

void TestSlowestRank::slowest_data()
{
    QTest::addColumn<QList<double>>("compute");
    QTest::addColumn<int>("rank");
    QTest::addColumn<QString>("summary");
    QTest::addRow("one rank: nothing to compare") << QList<double>{0.01} << -1 << QString();
    QTest::addRow("two ranks") << QList<double>{0.001, 0.0113} << 1
                               << QStringLiteral(
                                      "slowest rank 1: 1.8x the median compute per step (11.3 ms vs 6.1 ms)");
    QTest::addRow("a straggler of four") << QList<double>{0.1, 0.1, 0.3, 0.1} << 2
                                         << QStringLiteral(
                                                "slowest rank 2: 3.0x the median compute per step (0.30 s vs 0.10 s)");
    QTest::addRow("unknown values left out")
        << QList<double>{kNoValue, 0.02, 0.01} << 1
        << QStringLiteral("slowest rank 1: 1.3x the median compute per step (20.0 ms vs 15.0 ms)");
}

void TestSlowestRank::slowest()
{
    QFETCH(QList<double>, compute);
    QFETCH(int, rank);
    QFETCH(QString, summary);
    const SlowestRank slowest = slowestRank(compute);
    QCOMPARE(slowest.rank, rank);
    QCOMPARE(slowestRankSummary(slowest), summary);
}

TORCHDECK_TEST_MAIN(TestSlowestRank)
#include "tst_slowestrank.moc"
