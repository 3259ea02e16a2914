// The wall-time budget (issue 7): core/jobs/walltimebudget.h.
#include "core/jobs/walltimebudget.h"
#include "testmain.h"

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
        QCOMPARE(wallTimeBudget(3600, 300, 600, 1.0, 30).suggestedLeadSeconds, 62);  // 2 x (1 + 30)
        QCOMPARE(wallTimeBudget(3600, 300, 600, 0.1, 0.5).suggestedLeadSeconds, 60); // never below a minute
        // A short wall time: no more than its default lead, a fifth of it (12 s of a minute), unless measured so.
        QCOMPARE(wallTimeBudget(60, 12, 20, 0.1, 0.5).suggestedLeadSeconds, 12);
        QVERIFY(!wallTimeBudget(60, 12, 20, 0.1, 0.5).summary.contains(QStringLiteral("lead should be")));
        QCOMPARE(wallTimeBudget(60, 12, 20, 1.0, 9.0).suggestedLeadSeconds, 20);
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

    // A 1 h job that started at t=1000 with its signal 300 s before the end (t=4300).
    static CheckpointOutlookInput runningJob()
    {
        CheckpointOutlookInput in;
        in.wallTimeSeconds = 3600;
        in.signalLeadSeconds = 300;
        in.jobStart = 1000;
        in.lastStepTime = 2000;
        in.now = 2010;
        in.secondsPerStep = 2.0;
        in.secondsPerCheckpoint = 20;
        in.stepsToCheckpoint = 100;
        in.nextCheckpointStep = 500;
        return in;
    }

    void theNextCheckpointFitsBeforeTheSignal()
    {
        // Due at 2000 + 100 x 2 + 20 = 2220, the signal at 4300.
        const CheckpointOutlook outlook = checkpointOutlook(runningJob());
        QVERIFY(outlook.known);
        QVERIFY(outlook.fits);
        QCOMPARE(outlook.nextCheckpointIn, 210.0);
        QCOMPARE(outlook.signalIn, 2290.0);
        QCOMPARE(outlook.summary,
                 QStringLiteral("next checkpoint (step 500) in ~3m30s, the warning signal in ~38m10s: it fits"));
    }

    void theSignalComesFirst()
    {
        CheckpointOutlookInput in = runningJob();
        in.stepsToCheckpoint = 1200; // due at 4420, after the signal
        const CheckpointOutlook outlook = checkpointOutlook(in);
        QVERIFY(outlook.known);
        QVERIFY(!outlook.fits);
        QVERIFY2(outlook.summary.contains(QStringLiteral("the warning signal comes first, in ~38m10s")),
                 qPrintable(outlook.summary));
        in.signalLeadSeconds = 0; // no signal: the end is the wall time, at 4600, and the work is lost
        in.stepsToCheckpoint = 1400;
        const CheckpointOutlook lost = checkpointOutlook(in);
        QVERIFY(!lost.fits);
        QVERIFY2(lost.summary.contains(QStringLiteral("will be lost")), qPrintable(lost.summary));
    }

    void unknownWithoutPaceOrWallTime()
    {
        CheckpointOutlookInput in = runningJob();
        in.secondsPerStep = 0;
        QVERIFY(!checkpointOutlook(in).known);
        in = runningJob();
        in.wallTimeSeconds = 0;
        QVERIFY(!checkpointOutlook(in).known);
    }
};

TORCHDECK_TEST_MAIN(TestWallTimeBudget)
#include "tst_walltimebudget.moc"
