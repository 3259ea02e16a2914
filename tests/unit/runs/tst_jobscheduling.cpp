// What the scheduler says of a job beyond its state, stored and put in words (core/runs/jobscheduling.h).
#include "core/runs/jobscheduling.h"
#include "core/scheduler/jobstate.h"
#include "core/scheduler/sacctparser.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

namespace {

JobRecord job(JobState state, const QString &schedulerState, const QString &reason, int exitCode = -1)
{
    JobRecord record;
    record.jobId = QStringLiteral("42");
    record.state = jobStateName(state);
    record.exitCode = exitCode;
    record.scheduling.state = schedulerState;
    record.scheduling.reason = reason;
    return record;
}

// sacct --parsable2 --noheader lines in the format the poll asks for (slurm::sacctArgs), of ends the sandbox
// cannot cause (it enforces no memory limit, and its node never fails).
const QByteArray sacctEnds = "70|OUT_OF_MEMORY|0:125|OutOfMemory|node1|debug|2026-11-26T10:00:00|"
                             "2026-11-26T10:00:05|2026-11-26T10:03:17|01:00:00|00:03:12|oom\n"
                             "71|NODE_FAIL|0:0|None|node[1-2]|debug|2026-11-26T10:00:00|2026-11-26T10:00:05|"
                             "2026-11-26T10:10:05|01:00:00|00:10:00|nodefail\n";

} // namespace

class TestJobScheduling : public QObject {
    Q_OBJECT
private slots:
    void endCauses_data()
    {
        QTest::addColumn<JobRecord>("job");
        QTest::addColumn<QString>("cause");
        QTest::addRow("out of memory") << job(JobState::Failed, QStringLiteral("OUT_OF_MEMORY"), {}, 0)
                                       << QStringLiteral("out of memory");
        QTest::addRow("oom code") << job(JobState::Failed, QStringLiteral("OOM"), {}, 0)
                                  << QStringLiteral("out of memory");
        QTest::addRow("node failure") << job(JobState::Failed, QStringLiteral("NODE_FAIL"), {}, 0)
                                      << QStringLiteral("node failure");
        QTest::addRow("boot failure") << job(JobState::Failed, QStringLiteral("BOOT_FAIL"), {})
                                      << QStringLiteral("its nodes failed to boot");
        QTest::addRow("wall time") << job(JobState::Timeout, QStringLiteral("TIMEOUT"), {})
                                   << QStringLiteral("wall time");
        QTest::addRow("pbs wall time") << job(JobState::Timeout, QStringLiteral("F"), {}, 271)
                                       << QStringLiteral("wall time");
        QTest::addRow("preempted") << job(JobState::Preempted, QStringLiteral("PREEMPTED"), {})
                                   << QStringLiteral("preempted");
        QTest::addRow("cancelled by uid")
            << job(JobState::Cancelled, QStringLiteral("CANCELLED by 1000"), {}) << QStringLiteral("cancelled");
        QTest::addRow("exit code") << job(JobState::Failed, QStringLiteral("FAILED"), QStringLiteral("NonZeroExitCode"),
                                          3)
                                   << QStringLiteral("exit code 3");
        JobRecord spare = job(JobState::Cancelled, QStringLiteral("CANCELLED by 0"), QStringLiteral("Dependency"));
        spare.origin = QStringLiteral("chain");
        QTest::addRow("a chain's spare") << spare << QStringLiteral("cancelled before it ran (a spare of --chain)");
        QTest::addRow("checkpointed to be restarted")
            << job(JobState::Failed, QStringLiteral("FAILED"), QStringLiteral("NonZeroExitCode"), 75)
            << QStringLiteral("exit code 75: it checkpointed to be restarted");
        QTest::addRow("completed") << job(JobState::Completed, QStringLiteral("COMPLETED"), {}, 0) << QString();
        QTest::addRow("running") << job(JobState::Running, QStringLiteral("RUNNING"), {}) << QString();
        QTest::addRow("stored before") << job(JobState::Failed, {}, {}, 1) << QStringLiteral("exit code 1");
    }
    void endCauses()
    {
        QFETCH(JobRecord, job);
        QFETCH(QString, cause);
        QCOMPARE(endCause(job), cause);
        QCOMPARE(jobWhy(job), cause);
        QVERIFY(waitReason(job).isEmpty());
    }

    // The run's own requeue code says "checkpointed", not the trainer's 75 (a custom command's may differ); a chain's
    // attempt that was given nodes ran, whatever was read of it.
    void endCausesOfTheRunsOwn()
    {
        const JobRecord exited = job(JobState::Failed, QStringLiteral("FAILED"), QStringLiteral("NonZeroExitCode"), 75);
        QCOMPARE(endCause(exited, 99), QStringLiteral("exit code 75"));
        JobRecord asked = exited;
        asked.exitCode = 99;
        QCOMPARE(endCause(asked, 99), QStringLiteral("exit code 99: it checkpointed to be restarted"));
        JobRecord started = job(JobState::Cancelled, QStringLiteral("CANCELLED by 0"), {});
        started.origin = QStringLiteral("chain");
        started.scheduling.nodes = QStringLiteral("node1");
        QCOMPARE(endCause(started), QStringLiteral("cancelled"));
    }

    void waitReasons_data()
    {
        QTest::addColumn<JobRecord>("job");
        QTest::addColumn<QString>("reason");
        QTest::addRow("priority") << job(JobState::Pending, QStringLiteral("PENDING"), QStringLiteral("Priority"))
                                  << QStringLiteral("higher-priority jobs are ahead of it (Priority)");
        QTest::addRow("begin time") << job(JobState::Pending, QStringLiteral("PENDING"), QStringLiteral("BeginTime"))
                                    << QStringLiteral("its start time has not come yet (BeginTime)");
        QTest::addRow("qos limit") << job(JobState::Pending, QStringLiteral("PD"),
                                          QStringLiteral("QOSMaxJobsPerUserLimit"))
                                   << QStringLiteral("a limit of its QOS (QOSMaxJobsPerUserLimit)");
        QTest::addRow("unknown code") << job(JobState::Pending, QStringLiteral("PD"), QStringLiteral("FrontEndDown"))
                                      << QStringLiteral("FrontEndDown");
        QTest::addRow("pbs comment") << job(JobState::Pending, QStringLiteral("Q"),
                                            QStringLiteral("Not Running: Insufficient amount of resource: ncpus"))
                                     << QStringLiteral("Not Running: Insufficient amount of resource: ncpus");
        QTest::addRow("nothing said") << job(JobState::Pending, QStringLiteral("PENDING"), {}) << QString();
        QTest::addRow("running") << job(JobState::Running, QStringLiteral("RUNNING"), QStringLiteral("Priority"))
                                 << QString();
    }
    void waitReasons()
    {
        QFETCH(JobRecord, job);
        QFETCH(QString, reason);
        QCOMPARE(waitReason(job), reason);
    }

    void waitedPastTheLimit_data()
    {
        QTest::addColumn<QString>("reason");
        QTest::addColumn<int>("waitedSeconds");
        QTest::addColumn<int>("limit");
        QTest::addColumn<bool>("told");
        QTest::addRow("resources, long") << QStringLiteral("Resources") << 7200 << 3600 << true;
        QTest::addRow("priority, not yet") << QStringLiteral("Priority") << 60 << 3600 << false;
        QTest::addRow("switched off") << QStringLiteral("Resources") << 7200 << 0 << false;
        QTest::addRow("a start time asked for") << QStringLiteral("BeginTime") << 7200 << 3600 << false;
        QTest::addRow("a chain's attempt") << QStringLiteral("Dependency") << 7200 << 3600 << false;
        QTest::addRow("held by its user") << QStringLiteral("JobHeldUser") << 7200 << 3600 << false;
    }
    void waitedPastTheLimit()
    {
        QFETCH(QString, reason);
        QFETCH(int, waitedSeconds);
        QFETCH(int, limit);
        QFETCH(bool, told);
        JobRecord waiting = job(JobState::Pending, QStringLiteral("PENDING"), reason);
        const QDateTime now = QDateTime::fromSecsSinceEpoch(1800000000, Qt::UTC);
        waiting.submitted = now.addSecs(-waitedSeconds);
        QCOMPARE(waitedPastLimit(waiting, now, limit), told);
        JobRecord running = waiting;
        running.state = jobStateName(JobState::Running);
        QVERIFY(!waitedPastLimit(running, now, limit));
    }

    void aRestartIsMovedAfterItsTime_data()
    {
        QTest::addColumn<int>("attempt");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<int>("waitedSeconds");
        QTest::addColumn<bool>("due");
        QTest::addRow("a restart, long") << 1 << QStringLiteral("Resources") << 90 << true;
        QTest::addRow("a restart, not yet") << 1 << QStringLiteral("Priority") << 30 << false;
        QTest::addRow("the first job") << 0 << QStringLiteral("Resources") << 90 << false;
        QTest::addRow("held by a move that stopped") << 2 << QStringLiteral("JobHeldUser") << 90 << true;
        QTest::addRow("a chain's attempt") << 1 << QStringLiteral("Dependency") << 90 << false;
    }
    void aRestartIsMovedAfterItsTime()
    {
        QFETCH(int, attempt);
        QFETCH(QString, reason);
        QFETCH(int, waitedSeconds);
        QFETCH(bool, due);
        JobRecord waiting = job(JobState::Pending, QStringLiteral("PENDING"), reason);
        waiting.attempt = attempt;
        const QDateTime now = QDateTime::fromSecsSinceEpoch(1800000000, Qt::UTC);
        waiting.submitted = now.addSecs(-waitedSeconds);
        QCOMPARE(restartWaitedToMove(waiting, now, 60), due);
        QVERIFY(!restartWaitedToMove(waiting, now, 0)); // --move-after not given
        JobRecord running = waiting;
        running.state = jobStateName(JobState::Running);
        QVERIFY(!restartWaitedToMove(running, now, 60));
    }

    void expectedStartInWords()
    {
        JobRecord waiting = job(JobState::Pending, QStringLiteral("PENDING"), QStringLiteral("BeginTime"));
        waiting.scheduling.startEstimate = QDateTime(QDate(2026, 11, 26), QTime(17, 30), Qt::LocalTime).toUTC();
        QCOMPARE(jobWhy(waiting),
                 QStringLiteral("its start time has not come yet (BeginTime); expected start 2026-11-26 17:30"));
        waiting.scheduling.reason.clear();
        QCOMPARE(jobWhy(waiting), QStringLiteral("expected start 2026-11-26 17:30"));
    }

    // From a poll's JobInfo to what the store keeps.
    void schedulingFromAPoll()
    {
        JobInfo pending;
        pending.state = JobState::Pending;
        pending.rawState = QStringLiteral("PENDING");
        pending.reason = QStringLiteral("None");
        pending.nodes = QStringLiteral("(null)");
        pending.expectedStart = QDateTime(QDate(2026, 11, 26), QTime(17, 30), Qt::LocalTime);
        JobScheduling stored = schedulingOf(pending);
        QCOMPARE(stored.state, QStringLiteral("PENDING"));
        QVERIFY(stored.reason.isEmpty());
        QVERIFY(stored.nodes.isEmpty());
        QCOMPARE(stored.startEstimate, pending.expectedStart.toUTC());
        QCOMPARE(stored.startEstimate.timeSpec(), Qt::UTC);

        JobInfo running = pending;
        running.state = JobState::Running;
        running.nodes = QStringLiteral("node[01-02]");
        stored = schedulingOf(running);
        QVERIFY(!stored.startEstimate.isValid()); // it started: no estimate
        QCOMPARE(stored.nodes, QStringLiteral("node[01-02]"));
    }

    // sacct's words for ends the sandbox cannot cause, through the parser, the store's record and the words.
    void endsFromSacct()
    {
        const JobListResult parsed = parseSacct(sacctEnds);
        QVERIFY2(parsed.ok(), qPrintable(parsed.errorString()));
        const auto causeOf = [&](const QString &id) {
            const JobInfo *info = parsed.find(id);
            if (!info)
                return QStringLiteral("(no job %1)").arg(id);
            JobRecord record;
            record.jobId = id;
            record.state = jobStateName(info->state);
            record.exitCode = info->exitCode;
            record.scheduling = schedulingOf(*info);
            return endCause(record);
        };
        QCOMPARE(causeOf(QStringLiteral("70")), QStringLiteral("out of memory"));
        QCOMPARE(causeOf(QStringLiteral("71")), QStringLiteral("node failure"));
        QCOMPARE(parsed.find(QStringLiteral("71"))->nodes, QStringLiteral("node[1-2]"));
    }
};

TORCHDECK_TEST_MAIN(TestJobScheduling)
#include "tst_jobscheduling.moc"
