// When a run restarts from outside (issue 7): core/runs/restartdecision.h, a pure function.
#include "../metrics/metricevents.h"
#include "core/runs/restartdecision.h"
#include "core/scheduler/jobstate.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using torchdeck::decideRestart;
using torchdeck::stoppedAtWallTimeWarning;

class TestRestartDecision : public QObject {
    Q_OBJECT

private:
    static JobRecord job(int attempt, JobState state, int exitCode = -1)
    {
        JobRecord record;
        record.attempt = attempt;
        record.jobId = QString::number(100 + attempt);
        record.state = jobStateName(state);
        record.exitCode = exitCode;
        return record;
    }
    static JobInfo ran(qint64 timeLimitSeconds, qint64 elapsedSeconds)
    {
        JobInfo info;
        info.timeLimitSeconds = timeLimitSeconds;
        info.elapsedSeconds = elapsedSeconds;
        return info;
    }
    static RunInfo stoppedWith(int exitCode, const QString &message = {})
    {
        RunInfo info;
        info.stopped = true;
        info.exitCode = exitCode;
        info.stopReason = exitCode == 0    ? QStringLiteral("done")
                          : exitCode == 75 ? QStringLiteral("signal")
                                           : QStringLiteral("error");
        info.stopMessage = message;
        return info;
    }

private slots:
    void restartsWhenTheTrainerAskedToBeRequeued()
    {
        const auto decision = decideRestart(JobSpec{}, {job(0, JobState::Failed, 75)}, stoppedWith(75));
        QVERIFY(decision.restart);
        QVERIFY2(decision.reason.contains(QStringLiteral("restart 1 of 3")), qPrintable(decision.reason));
    }

    void restartsAfterWallTimeOrPreemptionWithoutAStopEvent()
    {
        QVERIFY(decideRestart(JobSpec{}, {job(0, JobState::Timeout)}, RunInfo{}).restart);
        QVERIFY(decideRestart(JobSpec{}, {job(0, JobState::Preempted)}, RunInfo{}).restart);
    }

    void pbsCompletedButTheTrainerSaid75()
    {
        QVERIFY(decideRestart(JobSpec{}, {job(0, JobState::Completed)}, stoppedWith(75)).restart);
        QVERIFY(!decideRestart(JobSpec{}, {job(0, JobState::Completed)}, stoppedWith(0)).restart);
    }

    void aRealErrorIsNotRestartedAndSaysWhy()
    {
        const auto decision = decideRestart(JobSpec{}, {job(0, JobState::Failed, 1)},
                                            stoppedWith(1, QStringLiteral("cannot open /data/train-images")));
        QVERIFY(!decision.restart);
        QVERIFY2(decision.reason.contains(QStringLiteral("/data/train-images")), qPrintable(decision.reason));
    }

    void stopsAtTheRestartLimit()
    {
        JobSpec spec;
        spec.maxRestarts = 2;
        const QList<JobRecord> three{job(0, JobState::Timeout), job(1, JobState::Timeout), job(2, JobState::Timeout)};
        const auto decision = decideRestart(spec, three, RunInfo{});
        QVERIFY(!decision.restart);
        QVERIFY2(decision.reason.contains(QStringLiteral("2 restarts")), qPrintable(decision.reason));
        QVERIFY(decideRestart(spec, three.mid(0, 2), RunInfo{}).restart);
    }

    // Only the agent's own restarts count, since the user last resumed the run; a chain's attempts were asked for.
    void countsTheAgentsRestartsSinceTheUsersResume()
    {
        const auto attempt = [](int n, const QString &origin) {
            JobRecord record = job(n, JobState::Timeout);
            record.origin = origin;
            return record;
        };
        const QString submit = QStringLiteral("submit"), restart = QStringLiteral("restart"),
                      resume = QStringLiteral("resume"), chain = QStringLiteral("chain");
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, restart)}), 1);
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, resume)}), 0);
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, restart), attempt(2, resume), attempt(3, restart)}), 1);
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, chain), attempt(2, chain)}), 2); // they ran
        JobRecord unrun = attempt(2, chain);
        unrun.state = jobStateName(JobState::Cancelled);
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, chain), unrun}), 1);
        QCOMPARE(restartsUsed({attempt(0, {}), attempt(1, {}), attempt(2, {})}), 2); // recorded before origins
        JobInfo requeued;
        requeued.restarts = 2;
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, resume)}, requeued), 2);
        // Once the scheduler forgot the job, the trainer's start events in its metrics tell its own requeues.
        RunSeries series;
        MetricEvent start;
        start.kind = MetricEventKind::Start;
        series.apply(start, 0);
        series.apply(testing::resumedStart(100), 1);
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, restart)}, {}, series.info()), 1);
        series.apply(testing::resumedStart(200), 1); // job 101 requeued itself once
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, restart)}, {}, series.info()), 2);
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, restart)}, requeued, series.info()), 3);
        // Each job's own, since the user's resume: job 101's stays counted once the agent restarted it.
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, restart), attempt(2, restart)}, {}, series.info()), 3);
        QCOMPARE(restartsUsed({attempt(0, submit), attempt(1, restart), attempt(2, resume)}, {}, series.info()), 0);
        JobSpec spec;
        spec.maxRestarts = 1;
        QVERIFY(decideRestart(spec, {attempt(0, submit), attempt(1, resume)}, RunInfo{}).restart);
        QVERIFY(!decideRestart(spec, {attempt(0, submit), attempt(1, resume), attempt(2, restart)}, RunInfo{}).restart);
    }

    void saysWhenTheSignalWasTheWallTimesWarning()
    {
        JobSpec spec;
        spec.signalLeadSeconds = 60;
        // Slurm checks every 30 s: the warning of a 120 s job with lead 60 came at 30-60 s.
        const auto atWallTime = decideRestart(spec, {job(0, JobState::Failed, 75)}, stoppedWith(75), ran(120, 41));
        QVERIFY(atWallTime.restart);
        QVERIFY2(atWallTime.reason.startsWith(QStringLiteral("job 100 stopped at its wall time's warning signal")),
                 qPrintable(atWallTime.reason));
        // scancel --signal after 41 s of 10 minutes
        const auto early = decideRestart(spec, {job(0, JobState::Failed, 75)}, stoppedWith(75), ran(600, 41));
        QVERIFY(early.restart);
        QVERIFY2(early.reason.startsWith(QStringLiteral("job 100 checkpointed and asked to be requeued")),
                 qPrintable(early.reason));
        QVERIFY(stoppedAtWallTimeWarning(spec, ran(600, 480)));
        QVERIFY(!stoppedAtWallTimeWarning(spec, ran(600, 479)));
        QVERIFY(!stoppedAtWallTimeWarning(spec, JobInfo{}));   // not polled: no time limit known
        QVERIFY(!stoppedAtWallTimeWarning(spec, ran(0, 590))); // no time limit
        spec.checkpointSignalEnabled = false;                  // no warning asked for
        QVERIFY(!stoppedAtWallTimeWarning(spec, ran(600, 590)));
    }

    void aJobThatRequeuesItselfIsLeftToItWhileItDoes()
    {
        JobSpec inJob;
        inJob.requeue = true;
        JobInfo again; // pending again under the same id, its first run's stop event read
        again.restarts = 1;
        QVERIFY(!decideRestart(inJob, {job(0, JobState::Requeued)}, stoppedWith(75), again).restart);
        QVERIFY(!decideRestart(inJob, {job(0, JobState::Running)}, stoppedWith(75), again).restart);
        QVERIFY(!decideRestart(inJob, {job(0, JobState::Completed, 0)}, stoppedWith(0), again).restart);
    }

    void aJobThatFailedToRequeueItselfIsRestartedFromHere()
    {
        JobSpec inJob;
        inJob.requeue = true;
        JobInfo ended; // scontrol requeue failed in the job's first run
        ended.restarts = 0;
        const auto decision = decideRestart(inJob, {job(0, JobState::Failed, 75)}, stoppedWith(75), ended);
        QVERIFY(decision.restart);
        QVERIFY2(decision.reason.startsWith(
                     QStringLiteral("job 100 checkpointed but did not requeue itself: restart 1 of 3")),
                 qPrintable(decision.reason));
        QVERIFY(decideRestart(inJob, {job(0, JobState::Timeout)}, RunInfo{}, ended).restart); // killed first
        ended.restarts = 2; // requeued itself twice before
        const auto third = decideRestart(inJob, {job(0, JobState::Failed, 75)}, stoppedWith(75), ended);
        QVERIFY2(third.reason.contains(QStringLiteral("restart 3 of 3")), qPrintable(third.reason));
        ended.restarts = 3; // the script's own limit: "not requeueing"
        const auto limit = decideRestart(inJob, {job(0, JobState::Failed, 75)}, stoppedWith(75), ended);
        QVERIFY(!limit.restart);
        QVERIFY2(limit.reason.contains(QStringLiteral("3 restarts done")), qPrintable(limit.reason));
    }

    void theJobThatSpeaksForAChain()
    {
        using torchdeck::speakingJob;
        // submit --chain 3: attempts 1 and 2 wait behind attempt 0.
        QList<JobRecord> chain{job(0, JobState::Running), job(1, JobState::Pending), job(2, JobState::Pending)};
        QCOMPARE(speakingJob(chain), 0);
        chain[0] = job(0, JobState::Failed, 75); // asked to be requeued: attempt 1's turn
        QCOMPARE(speakingJob(chain), 1);
        chain[1] = job(1, JobState::Completed, 0);
        chain[2] = job(2, JobState::Cancelled); // never ran: cancelled by the tracker
        QCOMPARE(speakingJob(chain), 1);
        chain[2].offsets.metricsOffset = 120; // it ran, then the user cancelled it
        QCOMPARE(speakingJob(chain), 2);
        QCOMPARE(speakingJob({job(0, JobState::Cancelled)}), 0);
        QCOMPARE(speakingJob({}), -1);
        // Without a chain the newest job speaks, as always.
        QCOMPARE(speakingJob({job(0, JobState::Failed, 75), job(1, JobState::Running)}), 1);
        QCOMPARE(speakingJob({job(0, JobState::Failed, 75), job(1, JobState::Timeout)}), 1);
    }

    void aChainedAttemptWhoseTurnCannotComeIsCancelled()
    {
        using torchdeck::waitsInVain;
        const QList<JobRecord> done{job(0, JobState::Failed, 75), job(1, JobState::Completed, 0)};
        JobInfo waiting;
        waiting.state = JobState::Pending;
        waiting.reason = QStringLiteral("Dependency");
        QVERIFY(!waitsInVain(waiting, done));
        waiting.reason = QStringLiteral("DependencyNeverSatisfied");
        QVERIFY(waitsInVain(waiting, done));
        QVERIFY(!waitsInVain(waiting, {}));                            // the user's own dependency
        QVERIFY(!waitsInVain(waiting, {job(0, JobState::Failed, 1)})); // no attempt completed
        waiting.state = JobState::Running;
        QVERIFY(!waitsInVain(waiting, done));
    }

    void theLeftoversOfAChainAreCancelledLastFirst()
    {
        using torchdeck::chainLeftovers;
        // submit --chain 4, attempt 0 completed: 1 waits in vain, 2 and 3 wait on the one before them.
        QList<JobRecord> chain{job(0, JobState::Completed, 0), job(1, JobState::Pending), job(2, JobState::Pending),
                               job(3, JobState::Pending)};
        QHash<QString, JobInfo> polled;
        for (const JobRecord &attempt : chain) {
            JobInfo info;
            info.id = attempt.jobId;
            info.state = attempt.attempt == 0 ? JobState::Completed : JobState::Pending;
            info.reason =
                attempt.attempt == 1 ? QStringLiteral("DependencyNeverSatisfied") : QStringLiteral("Dependency");
            polled.insert(info.id, info);
        }
        QCOMPARE(chainLeftovers(chain, polled),
                 (QStringList{QStringLiteral("103"), QStringLiteral("102"), QStringLiteral("101")}));
        polled[QStringLiteral("101")].reason = QStringLiteral("Dependency"); // attempt 0 still runs
        chain[0] = job(0, JobState::Running);
        QVERIFY(chainLeftovers(chain, polled).isEmpty());
        QVERIFY(chainLeftovers({job(0, JobState::Completed, 0)}, {}).isEmpty());
    }

    void leavesAloneWhatIsNotItsBusiness()
    {
        QVERIFY(!decideRestart(JobSpec{}, {}, RunInfo{}).restart);
        QVERIFY(!decideRestart(JobSpec{}, {job(0, JobState::Running)}, RunInfo{}).restart);
        QVERIFY(!decideRestart(JobSpec{}, {job(0, JobState::Cancelled)}, stoppedWith(75)).restart);
    }

    void customCommandsRestartOnTheirExitCode()
    {
        // No stop event: the command's exit code 75 says "requeue me"; the scheduler's end says it too.
        JobSpec custom;
        custom.commandKind = CommandKind::Custom;
        QVERIFY(decideRestart(custom, {job(0, JobState::Timeout)}, RunInfo{}).restart);
        QVERIFY(decideRestart(custom, {job(0, JobState::Failed, 75)}, RunInfo{}).restart);
        QVERIFY(decideRestart(custom, {job(0, JobState::Completed, 75)}, RunInfo{}).restart); // PBS wrappers
        QVERIFY(!decideRestart(custom, {job(0, JobState::Completed, 0)}, RunInfo{}).restart);
        const RestartDecision failed = decideRestart(custom, {job(0, JobState::Failed, 1)}, RunInfo{});
        QVERIFY(!failed.restart);
        QCOMPARE(failed.reason, QStringLiteral("not restarted: job 100 failed with exit code 1"));
        custom.maxRestarts = 1;
        QVERIFY(
            !decideRestart(custom, {job(0, JobState::Failed, 75), job(1, JobState::Failed, 75)}, RunInfo{}).restart);
    }
};

TORCHDECK_TEST_MAIN(TestRestartDecision)
#include "tst_restartdecision.moc"
