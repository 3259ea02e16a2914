// How often a cluster's scheduler is asked (core/runs/pollschedule.h), and when restarts that failed are tried
// again (core/runs/restartretries.h): the agent's timing, as tables.
#include "core/runs/pollschedule.h"
#include "core/runs/restartretries.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace Qt::StringLiterals;

class TestPollSchedule : public QObject {
    Q_OBJECT
private slots:
    void interval_data()
    {
        QTest::addColumn<int>("asked");
        QTest::addColumn<int>("minimum");
        QTest::addColumn<int>("quiet");
        QTest::addColumn<int>("backoff");
        QTest::addColumn<int>("interval");
        QTest::addRow("the fronts' wish") << 1000 << 0 << 0 << 0 << 1000;
        QTest::addRow("never under the profile's minimum") << 1000 << 10000 << 0 << 0 << 10000;
        QTest::addRow("five quiet passes: not yet stretched") << 1000 << 0 << 5 << 0 << 1000;
        QTest::addRow("six quiet passes: twice") << 1000 << 0 << 6 << 0 << 2000;
        QTest::addRow("twelve: three times") << 1000 << 0 << 12 << 0 << 3000;
        QTest::addRow("a day of quiet: four times at most") << 1000 << 0 << 10000 << 0 << 4000;
        QTest::addRow("stretched, never past 5 minutes") << 120000 << 0 << 18 << 0 << kMostPollMs;
        QTest::addRow("a struggling scheduler holds it back") << 1000 << 0 << 0 << 20000 << 20000;
        QTest::addRow("a back-off under the interval changes nothing") << 10000 << 0 << 0 << 500 << 10000;
    }
    void interval()
    {
        QFETCH(int, asked);
        QFETCH(int, minimum);
        QFETCH(int, quiet);
        QFETCH(int, backoff);
        QFETCH(int, interval);
        QCOMPARE((PollSchedule{asked, minimum, quiet, backoff}.intervalMs()), interval);
    }

    void afterAPass_data()
    {
        QTest::addColumn<bool>("quiet");
        QTest::addColumn<bool>("failed");
        QTest::addColumn<qint64>("answerMs");
        QTest::addColumn<int>("quietPasses");
        QTest::addColumn<int>("backoff");
        // From {asked 1000, quiet 3, backoff 4000}: an interval of 4000.
        QTest::addRow("quiet, answered at once") << true << false << qint64(20) << 4 << 200;
        QTest::addRow("a change: short again") << false << false << qint64(20) << 0 << 200;
        QTest::addRow("failed: twice the wait") << true << true << qint64(0) << 4 << 8000;
        QTest::addRow("slow: ten times its answer") << false << false << qint64(2500) << 0 << 25000;
        QTest::addRow("very slow: 5 minutes at most") << false << false << qint64(3600000) << 0 << kMostPollMs;
    }
    void afterAPass()
    {
        QFETCH(bool, quiet);
        QFETCH(bool, failed);
        QFETCH(qint64, answerMs);
        QFETCH(int, quietPasses);
        QFETCH(int, backoff);
        const PollSchedule next = PollSchedule{1000, 0, 3, 4000}.afterPass(quiet, failed, answerMs);
        QCOMPARE(next.quietPasses, quietPasses);
        QCOMPARE(next.backoffMs, backoff);
        QCOMPARE(next.askedMs, 1000);
    }

    void failuresInARowReachTheCap()
    {
        PollSchedule schedule{1000, 0, 0, 0};
        for (int i = 0; i < 20; ++i)
            schedule = schedule.afterPass(false, true, 0);
        QCOMPARE(schedule.intervalMs(), kMostPollMs);
        schedule = schedule.afterPass(false, false, 10); // it answers again: at once back to the wish
        QCOMPARE(schedule.intervalMs(), 1000);
        QCOMPARE((PollSchedule{1000, 0, 30, 0}.woken().intervalMs()), 1000);
    }

    void rounds_data()
    {
        QTest::addColumn<int>("oldMs");
        QTest::addColumn<int>("newMs");
        QTest::addColumn<int>("remaining");
        QTest::addColumn<int>("due");
        QTest::addRow("shorter, past the new interval: now") << 10000 << 1000 << 5000 << 0;
        QTest::addRow("shorter, inside it: the rest of it") << 10000 << 6000 << 5000 << 1000;
        QTest::addRow("longer: the round stands") << 1000 << 10000 << 500 << -1;
        QTest::addRow("the same: the round stands") << 3000 << 3000 << 1000 << -1;
    }
    void rounds()
    {
        QFETCH(int, oldMs);
        QFETCH(int, newMs);
        QFETCH(int, remaining);
        QFETCH(int, due);
        QCOMPARE(shortenedRoundMs(oldMs, newMs, remaining), due);
    }

    void pollSoon_data()
    {
        QTest::addColumn<qint64>("sinceLast");
        QTest::addColumn<int>("minimum");
        QTest::addColumn<int>("due");
        QTest::addRow("a second for the scheduler to know") << qint64(0) << 0 << 1000;
        QTest::addRow("never sooner than the minimum after the last") << qint64(2000) << 10000 << 8000;
        QTest::addRow("the minimum is long past") << qint64(60000) << 10000 << 1000;
        QTest::addRow("no poll yet") << qint64(-1) << 10000 << 1000;
    }
    void pollSoon()
    {
        QFETCH(qint64, sinceLast);
        QFETCH(int, minimum);
        QFETCH(int, due);
        QCOMPARE(pollSoonMs(sinceLast, minimum), due);
    }

    void failedRestartsAreTriedAgainLater()
    {
        const QDateTime t0(QDate(2026, 11, 28), QTime(3, 0), Qt::UTC);
        RestartRetries retries;
        QVERIFY(retries.isEmpty());
        QCOMPARE(retries.failed(u"a"_s, t0), 30);
        QCOMPARE(retries.failed(u"b"_s, t0.addSecs(10)), 30);
        QVERIFY(retries.due(t0.addSecs(29), {}).isEmpty());
        QCOMPARE(retries.due(t0.addSecs(30), {}), QStringList{u"a"_s});
        QCOMPARE(retries.due(t0.addSecs(45), {}), (QStringList{u"a"_s, u"b"_s}));
        // Refused again: it waits twice as long.
        QCOMPARE(retries.failed(u"a"_s, t0.addSecs(30)), 60);
        QCOMPARE(retries.due(t0.addSecs(60), {}), QStringList{u"b"_s});
        // A run with a job again (restarted elsewhere) is forgotten; a cleared one too.
        QVERIFY(retries.due(t0.addSecs(600), {u"b"_s}).contains(u"a"_s));
        QVERIFY(!retries.contains(u"b"_s));
        retries.clear(u"a"_s);
        QVERIFY(retries.isEmpty());
    }
};

TORCHDECK_TEST_MAIN(TestPollSchedule)
#include "tst_pollschedule.moc"
