// The wall-time budget (issue 7): core/jobs/walltimebudget.h.
#include "core/jobs/walltimebudget.h"

#include <QTest>

using namespace torchdeck;

class TestWallTimeBudget : public QObject {
    Q_OBJECT
private slots:
    void epochsThatFitBeforeTheSignal()
    {
        // 1 h, signal 5 min before: 3300 s usable; 600 s per epoch + 30 s per save -> 5 epochs.
        const WallTimeBudget budget = wallTimeBudget(3600, 300, 600, 1.0, 30);
        QVERIFY(budget.known);
        QCOMPARE(budget.epochsPerJob, 5);
        QVERIFY(budget.reachesCheckpoint);
        QVERIFY2(budget.summary.contains(QStringLiteral("holds 5 epoch(s)")), qPrintable(budget.summary));
    }

    void warnsWhenNoCheckpointFits()
    {
        const WallTimeBudget budget = wallTimeBudget(1800, 300, 2000, 2.0, 10);
        QVERIFY(!budget.reachesCheckpoint);
        QVERIFY2(budget.summary.contains(QStringLiteral("cannot reach one epoch")), qPrintable(budget.summary));
    }

    void suggestsALeadThatCoversAStepAndASave()
    {
        QCOMPARE(wallTimeBudget(3600, 300, 600, 1.0, 30).suggestedLeadSeconds, 62); // 2 x (1 + 30)
        QCOMPARE(wallTimeBudget(3600, 300, 600, 0.1, 0.5).suggestedLeadSeconds, 60); // never below a minute
        const WallTimeBudget shortLead = wallTimeBudget(3600, 20, 600, 10.0, 90);
        QCOMPARE(shortLead.suggestedLeadSeconds, 200);
        QVERIFY2(shortLead.summary.contains(QStringLiteral("at least 200 s")), qPrintable(shortLead.summary));
    }

    void unknownWithoutWallTimeOrMeasurement()
    {
        QVERIFY(!wallTimeBudget(0, 300, 600, 1, 30).known);
        QVERIFY(!wallTimeBudget(3600, 300, std::numeric_limits<double>::quiet_NaN(), 1, 30).known);
        QVERIFY(!wallTimeBudget(3600, 300, 0, 1, 30).known);
    }

    void aLeadLongerThanTheWallTime()
    {
        const WallTimeBudget budget = wallTimeBudget(60, 300, 10, 0.1, 1);
        QVERIFY(budget.known);
        QCOMPARE(budget.epochsPerJob, 0);
        QVERIFY(!budget.reachesCheckpoint);
    }
};

QTEST_GUILESS_MAIN(TestWallTimeBudget)
#include "tst_walltimebudget.moc"
