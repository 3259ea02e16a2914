#include "core/runs/stackdump.h"
#include "core/runs/stallcheck.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestStallCheck : public QObject {
    Q_OBJECT
private slots:
    void thresholdFromThePace_data();
    void thresholdFromThePace();
    void heartbeats();
    void hangingRank_data();
    void hangingRank();
    void message();
    void stackDumpCommandAndAssembly();
};

namespace {
RunSeries stepsEvery(double seconds, int count)
{
    RunSeries series;
    for (int i = 1; i <= count; ++i) {
        MetricEvent step;
        step.kind = MetricEventKind::Step;
        step.step = i;
        step.loss = 1;
        step.time = 1000 + i * seconds;
        series.apply(step);
    }
    return series;
}
} // namespace

void TestStallCheck::thresholdFromThePace_data()
{
    QTest::addColumn<double>("every");
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("own");
    QTest::addColumn<double>("threshold");
    QTest::addRow("fast: at least a minute") << 0.5 << 30 << 0 << 60.0;
    QTest::addRow("ten times the pace") << 12.0 << 30 << 0 << 120.0;
    QTest::addRow("slow: before the collective timeout") << 60.0 << 30 << 0 << 240.0;
    QTest::addRow("too few steps: none") << 1.0 << 2 << 0 << kNoValue;
    QTest::addRow("the run's own setting") << 1.0 << 30 << 6 << 6.0;
    QTest::addRow("its own setting without steps") << 1.0 << 0 << 30 << 30.0;
}

void TestStallCheck::thresholdFromThePace()
{
    QFETCH(double, every);
    QFETCH(int, steps);
    QFETCH(int, own);
    QFETCH(double, threshold);
    const StallThreshold got = stallThreshold(stepsEvery(every, steps), own);
    QCOMPARE(MetricEvent::has(got.seconds), MetricEvent::has(threshold));
    if (MetricEvent::has(threshold))
        QCOMPARE(got.seconds, threshold);
    if (steps >= 3)
        QCOMPARE(got.typicalSeconds, every);
}

void TestStallCheck::heartbeats()
{
    const QByteArray output = "/w/runs/r/metrics-0.jsonl.rank1 step=40 phase=compute time=1795722095.398   \n"
                              "/w/runs/r/metrics-0.jsonl.rank0 step=40 phase=allreduce time=1795722095.390\n"
                              "/w/runs/r/metrics-0.jsonl.rank2 torn\n";
    const QList<RankPhase> phases = parseRankHeartbeats(output);
    QCOMPARE(phases.size(), 2);
    QCOMPARE(phases.at(0).rank, 0);
    QCOMPARE(phases.at(0).phase, QStringLiteral("allreduce"));
    QCOMPARE(phases.at(1).step, 40);
    QCOMPARE(phases.at(1).time, 1795722095.398);
    QVERIFY(
        rankHeartbeatCommand(QStringLiteral("/w/my runs/m.jsonl")).startsWith(u"for f in '/w/my runs/m.jsonl'.rank*;"));
}

void TestStallCheck::hangingRank_data()
{
    QTest::addColumn<QStringList>("phases"); // "step phase" per rank
    QTest::addColumn<QString>("named");
    QTest::addRow("one computes, the others wait")
        << QStringList{QStringLiteral("40 allreduce"), QStringLiteral("40 compute"), QStringLiteral("40 allreduce")}
        << QStringLiteral("rank 1 is still computing step 40 while the others wait in the all-reduce");
    QTest::addRow("two compute") << QStringList{QStringLiteral("40 compute"), QStringLiteral("40 compute"),
                                                QStringLiteral("40 allreduce")}
                                 << QStringLiteral(
                                        "ranks 0, 1 are still computing while the others wait in the all-reduce");
    QTest::addRow("one behind") << QStringList{QStringLiteral("41 eval"), QStringLiteral("40 checkpoint")}
                                << QStringLiteral("rank 1 is behind, at step 40 (checkpoint)");
    QTest::addRow("all alike") << QStringList{QStringLiteral("40 compute"), QStringLiteral("40 compute")} << QString();
    QTest::addRow("none") << QStringList{} << QString();
}

void TestStallCheck::hangingRank()
{
    QFETCH(QStringList, phases);
    QFETCH(QString, named);
    QList<RankPhase> parsed;
    for (qsizetype rank = 0; rank < phases.size(); ++rank) {
        const QStringList words = phases.at(rank).split(u' ');
        parsed.append({int(rank), words.at(0).toLongLong(), words.at(1), 0});
    }
    QCOMPARE(hangingRanks(parsed), named);
}

void TestStallCheck::message()
{
    StallThreshold threshold;
    threshold.seconds = 60;
    threshold.typicalSeconds = 0.5;
    const QString text = stallMessage(125, threshold, QStringLiteral("rank 1 is behind"));
    QCOMPARE(text, QStringLiteral(
                       "stalled: no new output for 2m05s (a step event every 0.5 s until then); rank 1 is behind"));
    QVERIFY(isStallMessage(text));
    QVERIFY(!isStallMessage(QStringLiteral("warning: resumed from x")));
}

void TestStallCheck::stackDumpCommandAndAssembly()
{
    const QString slurm = stackDumpCommand(SchedulerKind::Slurm, QStringLiteral("17"), QStringLiteral("n[1-2]"));
    QVERIFY(slurm.startsWith(QStringLiteral("timeout 120 srun --overlap --jobid=17 --label --quiet")));
    QVERIFY(slurm.contains(QStringLiteral("'--nodelist=n[1-2]'")));
    QVERIFY(slurm.contains(QStringLiteral("thread apply all bt")));
    // An array task: srun wants the task's own job number, which squeue gives for "123_4".
    const QString task = stackDumpCommand(SchedulerKind::Slurm, QStringLiteral("123_4"), QStringLiteral("n1"));
    QVERIFY2(task.startsWith(QStringLiteral(
                 "timeout 120 srun --overlap --jobid=\"$(squeue -h -j 123_4 -O JobID:0 | head -n 1)\" --label")),
             qPrintable(task));
    QVERIFY(stackDumpCommand(SchedulerKind::Pbs, QStringLiteral("5.pbs"), QStringLiteral("c1/0*4")).contains(u" c1 "));
    QVERIFY(stackDumpCommand(SchedulerKind::Local, QStringLiteral("5"), {}).isEmpty());
    const QByteArray output = "1: == n2 pid 9 rank 1 (train) ==\n0: == n1 pid 8 rank 0 (train) ==\n"
                              "1: #0 sleepForTesting\n0: #0 allreduce\nsrun: a word of its own\n";
    QCOMPARE(assembleStackDump(SchedulerKind::Slurm, output),
             QStringLiteral("srun: a word of its own\n== n1 pid 8 rank 0 (train) ==\n#0 allreduce\n"
                            "== n2 pid 9 rank 1 (train) ==\n#0 sleepForTesting\n"));
}

TORCHDECK_TEST_MAIN(TestStallCheck)
#include "tst_stallcheck.moc"
