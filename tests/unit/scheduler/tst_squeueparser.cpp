#include "core/scheduler/squeueparser.h"
#include "fixture.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestSqueueParser : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void everyCapturedJobParses_data();
    void everyCapturedJobParses();
    void activeStates_data();
    void activeStates();
    void finalStates_data();
    void finalStates();
    void exitStatusOnlyWhenEnded();
    void namesKeepPipesAndLength();
    void times();
    void malformed_data();
    void malformed();
    void arrayTasksGoByArrayAndTask();
    void badLineKeepsTheOthers();

private:
    JobListResult m_active;
    JobListResult m_final;
};

void TestSqueueParser::initTestCase()
{
    parseActiveAndFinal(parseSqueue, QStringLiteral("slurm-squeue"), &m_active, &m_final);
}

void TestSqueueParser::everyCapturedJobParses_data()
{
    QTest::addColumn<QString>("file");
    QTest::addRow("active") << QStringLiteral("slurm-squeue-active.txt");
    QTest::addRow("final") << QStringLiteral("slurm-squeue-final.txt");
}

void TestSqueueParser::everyCapturedJobParses()
{
    QFETCH(QString, file);
    const QByteArray output = fixture(file);
    const JobListResult result = parseSqueue(output);
    QCOMPARE(result.jobs.size(), output.count('\n'));
    for (const JobInfo &job : result.jobs) {
        QVERIFY(job.id.toInt() > 0);
        QVERIFY2(job.state != JobState::Unknown, qPrintable(job.rawState));
        QVERIFY(job.submitted.isValid());
        QCOMPARE(job.queue, QStringLiteral("debug"));
        QVERIFY(job.restarts >= 0);
    }
}

void TestSqueueParser::activeStates_data()
{
    addQueuedJobColumns();
    QTest::addRow("running") << QStringLiteral("td-timeout") << JobState::Running << QString();
    QTest::addRow("suspended") << QStringLiteral("td-running") << JobState::Pending << QString();
    QTest::addRow("resources") << QStringLiteral("td-pending-resources") << JobState::Pending << QString();
    QTest::addRow("held") << QStringLiteral("td-held") << JobState::Pending << QStringLiteral("JobHeldUser");
    QTest::addRow("dependency") << QStringLiteral("td-dependency") << JobState::Pending << QStringLiteral("Dependency");
    QTest::addRow("never") << QStringLiteral("td-dependency-never") << JobState::Pending
                           << QStringLiteral("DependencyNeverSatisfied");
    QTest::addRow("requeued") << QStringLiteral("td-requeued") << JobState::Requeued << QStringLiteral("BeginTime");
    QTest::addRow("requeue held") << QStringLiteral("td-requeue-held") << JobState::Requeued
                                  << QStringLiteral("job requeued in held state");
    QTest::addRow("wrapper job") << QStringLiteral("td-pbs") << JobState::Pending << QStringLiteral("Priority");
    QTest::addRow("completed") << QStringLiteral("td-completed") << JobState::Completed << QString();
    QTest::addRow("cancelled") << QStringLiteral("td-cancelled") << JobState::Cancelled << QString();
}

void TestSqueueParser::activeStates()
{
    verifyQueuedJob(m_active);
}

void TestSqueueParser::finalStates_data()
{
    addEndedJobColumns();
    addSlurmEndedJobRows(15);
    QTest::addRow("cancelled running") << QStringLiteral("td-running") << JobState::Cancelled << 143 << 0;
    QTest::addRow("requeued then done") << QStringLiteral("td-requeued") << JobState::Completed << 0 << 0;
    QTest::addRow("held cancelled") << QStringLiteral("td-held") << JobState::Cancelled << 0 << 0;
}

void TestSqueueParser::finalStates()
{
    verifyEndedJob(m_final);
}

void TestSqueueParser::exitStatusOnlyWhenEnded()
{
    const JobInfo *running = jobNamed(m_active, QStringLiteral("td-timeout"));
    QVERIFY(running);
    QCOMPARE(running->exitCode, -1);
    QVERIFY(!running->ended.isValid()); // squeue prints the expected end
    QVERIFY(running->started.isValid());
    QCOMPARE(running->timeLimitSeconds, qint64(60));
    QCOMPARE(running->nodes, QStringLiteral("node1"));
    const JobInfo *requeued = jobNamed(m_active, QStringLiteral("td-requeued"));
    QVERIFY(requeued);
    QCOMPARE(requeued->restarts, 1);
    QVERIFY(!requeued->started.isValid()); // an expected start, not a start
    QCOMPARE(requeued->expectedStart, QDateTime(QDate(2026, 11, 22), QTime(18, 22, 10), Qt::LocalTime));
    QVERIFY(!running->expectedStart.isValid()); // it started
    const JobInfo *pending = jobNamed(m_active, QStringLiteral("td-pending-resources"));
    QVERIFY(pending && !pending->expectedStart.isValid()); // N/A: the scheduler gave none
    QVERIFY(requeued->nodes.isEmpty());
    QCOMPARE(requeued->timeLimitSeconds, qint64(0)); // UNLIMITED
}

void TestSqueueParser::namesKeepPipesAndLength()
{
    QVERIFY(jobNamed(m_final, QStringLiteral("td name | with spaces")));
    QVERIFY(jobNamed(m_final, QStringLiteral("td-a-rather-long-job-name-that-is-longer-than-forty-characters")));
}

void TestSqueueParser::times()
{
    const JobInfo *timeout = jobNamed(m_final, QStringLiteral("td-timeout"));
    QVERIFY(timeout);
    QVERIFY(timeout->submitted <= timeout->started);
    QVERIFY(timeout->started.secsTo(timeout->ended) >= 60);
    QVERIFY(timeout->elapsedSeconds >= 60);
}

void TestSqueueParser::malformed_data()
{
    addRejectedOutputColumns();
    QTest::addRow("garbage") << QByteArray("hello world\n") << QStringLiteral("line 1: expected 15 fields");
    QTest::addRow("truncated line")
        << QByteArray("26|CANCELLED|None|0|15|UNLIMITED|0:00|node1|debug|2026-11-22T18:21:46|2026-11-")
        << QStringLiteral("line 1: expected 15 fields separated by '|', got 11");
    QTest::addRow("non-numeric id")
        << QByteArray("abc|RUNNING|None|0|0|1:00|0:00|node1|debug|2026-11-22T18:21:56|N/A|N/A|abc|N/A|x\n")
        << QStringLiteral("line 1: 'abc' is not a Slurm job id");
    QTest::addRow("non-numeric restarts")
        << QByteArray("\n5|RUNNING|None|x|0|1:00|0:00|node1|debug|2026-11-22T18:21:56|N/A|N/A|5|N/A|x\n")
        << QStringLiteral("line 2: restart count 'x'");
    addSlurmErrorReplyRow("slurm error text");
}

void TestSqueueParser::malformed()
{
    verifyRejectedOutput(parseSqueue);
}

void TestSqueueParser::arrayTasksGoByArrayAndTask()
{
    // Captured from the sandbox: an array's tasks print their own numbers as JobID (the last task has the
    // array's), the array and the task apart; a job outside an array has no task ("N/A").
    const JobListResult result = parseSqueue(
        "10|COMPLETED|None|0|0|5:00|0:02|node1|debug|2026-11-27T11:23:25|2026-11-27T11:23:26|2026-11-27T11:23:28|9|0|"
        "pause.PAUSE-37e79b80-a0\n"
        "9|PENDING|JobArrayTaskLimit|0|0|5:00|0:00||debug|2026-11-27T11:23:25|N/A|N/A|9|1|pause.PAUSE-37e79b80-a0\n"
        "11|RUNNING|None|0|0|5:00|0:01|node1|debug|2026-11-27T11:23:25|2026-11-27T11:23:26|N/A|11|N/A|single\n");
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 3);
    QCOMPARE(result.jobs.at(0).id, QStringLiteral("9_0"));
    QCOMPARE(result.jobs.at(0).state, JobState::Completed);
    QCOMPARE(result.jobs.at(1).id, QStringLiteral("9_1"));
    QCOMPARE(result.jobs.at(1).reason, QStringLiteral("JobArrayTaskLimit"));
    QCOMPARE(result.jobs.at(2).id, QStringLiteral("11"));
}

void TestSqueueParser::badLineKeepsTheOthers()
{
    QByteArray output = fixture(QStringLiteral("slurm-squeue-final.txt"));
    const int jobs = int(output.count('\n'));
    output.insert(0, "JOBID|STATE|REASON|RESTART_COUNT|EXIT_CODE|TIME_LIMIT|TIME|NODELIST|PARTITION|x|y|z|A|T|NAME\n");
    output.append("42|RUNN");
    const JobListResult result = parseSqueue(output);
    QCOMPARE(result.jobs.size(), jobs); // the header is skipped, the cut line is an error
    QCOMPARE(result.errors.size(), 1);
    QVERIFY(result.errors.constFirst().startsWith(QStringLiteral("line %1:").arg(jobs + 2)));
    QVERIFY(parseSqueue(QByteArray()).ok());
    QVERIFY(parseSqueue(QByteArray()).jobs.isEmpty());
}

TORCHDECK_TEST_MAIN(TestSqueueParser)
#include "tst_squeueparser.moc"
