// remote/stepsequence.h: the declared steps the launcher, the tracker's pass and the session's submissions run.
#include "remote/stepsequence.h"
#include "testmain.h"

#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <optional>

using namespace torchdeck::remote;

class TestStepSequence : public QObject {
    Q_OBJECT
private slots:
    void runsInOrderAndSaysEachTitle()
    {
        StepSequence steps;
        QStringList ran;
        steps.add({QStringLiteral("First"), QStringLiteral("the first"), [&](const StepHandle &step) {
                       ran.append(QStringLiteral("1"));
                       QTimer::singleShot(10, step.context(), [step] { step.done(); }); // later, as a reply would
                   }});
        steps.add({{}, {}, [&](const StepHandle &step) {
                       ran.append(QStringLiteral("2"));
                       step.done(); // at once: no recursion into the next step
                       QCOMPARE(ran.size(), 2);
                   }});
        steps.add({QStringLiteral("Third"), {}, [&](const StepHandle &step) {
                       ran.append(QStringLiteral("3"));
                       step.done();
                   }});
        QSignalSpy progress(&steps, &StepSequence::progress);
        QSignalSpy finished(&steps, &StepSequence::finished);
        steps.start();
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(ran, QStringList({QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}));
        QCOMPARE(progress.count(), 2);
        QCOMPARE(progress.at(1).at(0).toString(), QStringLiteral("Third"));
        QVERIFY(!steps.isRunning());
    }

    void theFirstFailureEndsItWithTheStepsOwnText()
    {
        StepSequence steps;
        bool third = false;
        steps.add({{}, {}, [](const StepHandle &step) { step.done(); }});
        steps.add({{}, QStringLiteral("preparing the run directory"), [](const StepHandle &step) {
                       step.fail(QStringLiteral("permission denied"));
                   }});
        steps.add({{}, {}, [&](const StepHandle &step) {
                       third = true;
                       step.done();
                   }});
        QSignalSpy failed(&steps, &StepSequence::failed);
        QSignalSpy finished(&steps, &StepSequence::finished);
        steps.start();
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("preparing the run directory: permission denied"));
        QTest::qWait(20);
        QVERIFY(!third);
        QCOMPARE(finished.count(), 0);
    }

    void lateAndRepeatedRepliesAreIgnored()
    {
        StepSequence steps;
        std::optional<StepHandle> first;
        int seconds = 0;
        steps.add({{}, {}, [&](const StepHandle &step) {
                       first = step;
                       step.done();
                       step.done(); // a second reply of the same step
                   }});
        steps.add({{}, {}, [&](const StepHandle &) { ++seconds; }}); // never answers
        steps.start();
        QTRY_COMPARE(seconds, 1);
        first->done();                       // stale: the second step runs
        first->fail(QStringLiteral("late")); // stale too
        QTest::qWait(20);
        QCOMPARE(seconds, 1);
        QVERIFY(steps.isRunning());
        steps.stop();
        QVERIFY(!steps.isRunning());
    }

    void startsAgainFromTheFirstStep()
    {
        StepSequence steps;
        int passes = 0;
        steps.add({{}, {}, [&](const StepHandle &step) {
                       ++passes;
                       step.doneAll(); // nothing more this time
                   }});
        steps.add({{}, {}, [](const StepHandle &step) { step.fail(QStringLiteral("never reached")); }});
        QSignalSpy finished(&steps, &StepSequence::finished);
        steps.start();
        QTRY_COMPARE(finished.count(), 1);
        steps.start();
        QTRY_COMPARE(finished.count(), 2);
        QCOMPARE(passes, 2);
    }

    void thenInsertsFollowUpsForThisRunOnly()
    {
        StepSequence steps;
        QStringList ran;
        bool more = true;
        steps.add({{}, {}, [&](const StepHandle &step) {
                       if (more)
                           steps.then({{{}, {}, [&](const StepHandle &s) {
                                            ran.append(QStringLiteral("inserted"));
                                            s.done();
                                        }}});
                       ran.append(QStringLiteral("first"));
                       step.done();
                   }});
        steps.add({{}, {}, [&](const StepHandle &step) {
                       ran.append(QStringLiteral("last"));
                       step.done();
                   }});
        QSignalSpy finished(&steps, &StepSequence::finished);
        steps.start();
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(ran, QStringList({QStringLiteral("first"), QStringLiteral("inserted"), QStringLiteral("last")}));
        more = false;
        ran.clear();
        steps.start();
        QTRY_COMPARE(finished.count(), 2);
        QCOMPARE(ran, QStringList({QStringLiteral("first"), QStringLiteral("last")}));
    }

    void afterAllWaitsForEveryCall()
    {
        int called = 0;
        const auto one = afterAll(3, [&] { ++called; });
        one();
        one();
        QCOMPARE(called, 0);
        one();
        QCOMPARE(called, 1);
        one(); // more calls than counted change nothing
        QCOMPARE(called, 1);
        afterAll(0, [&] { ++called; });
        QCOMPARE(called, 2);
    }
};

TORCHDECK_TEST_MAIN(TestStepSequence)
#include "tst_stepsequence.moc"
