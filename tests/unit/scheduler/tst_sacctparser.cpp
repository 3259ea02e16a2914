#include "core/scheduler/sacctparser.h"
#include "core/scheduler/schedulertext.h"
#include "fixture.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestSacctParser : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void parsableStates_data();
    void parsableStates();
    void requeuedJobIsReportedOnceAsItsLastRun();
    void brokenJobcompRecordStaysAJob();
    void accountingFormat();
    void arrayTasksThatNeverStartedAreEachTheirOwn();
    void malformed_data();
    void malformed();

private:
    JobListResult m_parsable;
};

void TestSacctParser::initTestCase()
{
    m_parsable = parseSacct(fixture(QStringLiteral("slurm-sacct-c-parsable.txt")));
    QVERIFY2(m_parsable.ok(), qPrintable(m_parsable.errorString()));
    QCOMPARE(m_parsable.jobs.size(), 15);
}

void TestSacctParser::parsableStates_data()
{
    addEndedJobColumns();
    addSlurmEndedJobRows(0); // the jobcomp file keeps no signal
    QTest::addRow("pending cancelled") << QStringLiteral("td-held") << JobState::Cancelled << 0 << 0;
    QTest::addRow("wrapper job") << QStringLiteral("td-pbs") << JobState::Cancelled << 0 << 0;
}

void TestSacctParser::parsableStates()
{
    const JobInfo *job = verifyEndedJob(m_parsable);
    if (!job)
        return;
    QCOMPARE(job->restarts, -1); // sacct does not say
}

void TestSacctParser::requeuedJobIsReportedOnceAsItsLastRun()
{
    const JobInfo *job = jobNamed(m_parsable, QStringLiteral("td-requeued"));
    QVERIFY(job);
    QCOMPARE(job->state, JobState::Completed);
    qsizetype count = 0;
    for (const JobInfo &each : m_parsable.jobs)
        count += each.id == job->id;
    QCOMPARE(count, 1);
    QCOMPARE(jobNamed(m_parsable, QStringLiteral("td-requeue-held"))->state, JobState::Cancelled);
    QCOMPARE(jobNamed(m_parsable, QStringLiteral("td-timeout"))->timeLimitSeconds,
             qint64(60));                                                      // "1": minutes
    QVERIFY(jobNamed(m_parsable, QStringLiteral("td-held"))->nodes.isEmpty()); // "(null)"
}

void TestSacctParser::brokenJobcompRecordStaysAJob()
{
    // Slurm writes the name unquoted into the jobcomp file; sacct -c then reads "td" and no State.
    const JobInfo *job = jobNamed(m_parsable, QStringLiteral("td"));
    QVERIFY(job);
    QCOMPARE(job->state, JobState::Unknown);
    QVERIFY(job->rawState.isEmpty());
}

void TestSacctParser::accountingFormat()
{
    // The same format from slurmdbd carries steps (skipped without --allocations), "CANCELLED by UID" and
    // names with '|'.
    const QByteArray output = "4242|CANCELLED by 1000|0:15|None|n[01-02]|gpu|2026-01-02T03:04:05|"
                              "2026-01-02T03:04:06|2026-01-02T04:00:00|1-00:00:00|00:55:54|a|b\n"
                              "4242.batch|CANCELLED|0:15||n01||2026-01-02T03:04:06|2026-01-02T03:04:06|"
                              "2026-01-02T04:00:00||00:55:54|batch\n"
                              "4243|PREEMPTED|0:0||n03|gpu|2026-01-02T03:04:05|2026-01-02T03:05:00|"
                              "2026-01-02T03:06:00|02:00:00|00:01:00|p\n"
                              "4244|OUT_OF_MEMORY|0:125||n03|gpu|Unknown|Unknown|Unknown|UNLIMITED|00:00:00|o\n";
    const JobListResult result = parseSacct(output);
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 3);
    QCOMPARE(result.jobs.at(0).state, JobState::Cancelled);
    QCOMPARE(result.jobs.at(0).rawState, QStringLiteral("CANCELLED by 1000"));
    QCOMPARE(result.jobs.at(0).name, QStringLiteral("a|b"));
    QCOMPARE(result.jobs.at(0).nodes, QStringLiteral("n[01-02]"));
    QCOMPARE(result.jobs.at(0).timeLimitSeconds, qint64(86400));
    QCOMPARE(result.jobs.at(0).elapsedSeconds, qint64(55 * 60 + 54));
    QCOMPARE(result.jobs.at(1).state, JobState::Preempted);
    QCOMPARE(result.jobs.at(2).state, JobState::Failed);
    QVERIFY(!result.jobs.at(2).submitted.isValid());
}

void TestSacctParser::arrayTasksThatNeverStartedAreEachTheirOwn()
{
    // An array cancelled before all its tasks ran: sacct shows the ones that never started as one line.
    const QByteArray output = "77_0|COMPLETED|0:0|None|n01|debug|2026-01-02T03:04:05|2026-01-02T03:04:06|"
                              "2026-01-02T03:05:06|00:10:00|00:01:00|lrs\n"
                              "77_[1-2,4%2]|CANCELLED by 0|0:0|None|None assigned|debug|2026-01-02T03:04:05|None|"
                              "2026-01-02T03:05:07|00:10:00|00:00:00|lrs\n";
    const JobListResult result = parseSacct(output);
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QStringList ids;
    for (const JobInfo &job : result.jobs)
        ids.append(job.id);
    QCOMPARE(ids, QStringList({QStringLiteral("77_0"), QStringLiteral("77_1"), QStringLiteral("77_2"),
                               QStringLiteral("77_4")}));
    QCOMPARE(result.find(QStringLiteral("77_2"))->state, JobState::Cancelled);
    QCOMPARE(schedulertext::slurmArrayTaskIds(QStringLiteral("77_[0-99999999]"), 5).size(), 5); // bounded
    QCOMPARE(schedulertext::slurmArrayTaskIds(QStringLiteral("77_3")), QStringList{QStringLiteral("77_3")});
}

void TestSacctParser::malformed_data()
{
    addRejectedOutputColumns();
    QTest::addRow("garbage") << QByteArray("\x01\x02 binary\n") << QStringLiteral("line 1: expected 12 fields");
    QTest::addRow("wrong column count") << QByteArray("1|COMPLETED|0:0\n")
                                        << QStringLiteral("line 1: expected 12 fields");
    QTest::addRow("non-numeric id") << QByteArray("x1|COMPLETED|0:0||n||||||00:00:00|n\n")
                                    << QStringLiteral("line 1: 'x1' is not a Slurm job id");
    QTest::addRow("accounting disabled") << QByteArray("Slurm accounting storage is disabled\n")
                                         << QStringLiteral("line 1:");
}

void TestSacctParser::malformed()
{
    verifyRejectedOutput(parseSacct);
}

TORCHDECK_TEST_MAIN(TestSacctParser)
#include "tst_sacctparser.moc"
