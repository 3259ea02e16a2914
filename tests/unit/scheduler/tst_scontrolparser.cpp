#include "core/scheduler/scontrolparser.h"
#include "fixture.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestScontrolParser : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void activeStates_data();
    void activeStates();
    void finalStates_data();
    void finalStates();
    void valuesWithSpaces();
    void freeTextOnlyEndsAtAKnownKey();
    void arrayTaskIds();
    void malformed_data();
    void malformed();
    void badLineKeepsTheOthers();

private:
    JobListResult m_active;
    JobListResult m_final;
};

void TestScontrolParser::initTestCase()
{
    parseActiveAndFinal(parseScontrolShowJob, QStringLiteral("slurm-scontrol"), &m_active, &m_final);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(m_active.jobs.size(), 15);
    QCOMPARE(m_final.jobs.size(), 15);
}

void TestScontrolParser::activeStates_data()
{
    addQueuedJobColumns();
    QTest::addColumn<int>("restarts");
    QTest::addRow("running") << QStringLiteral("td-timeout") << JobState::Running << QString() << 0;
    QTest::addRow("suspended") << QStringLiteral("td-running") << JobState::Pending << QString() << 0;
    QTest::addRow("held") << QStringLiteral("td-held") << JobState::Pending << QStringLiteral("JobHeldUser") << 0;
    QTest::addRow("requeued") << QStringLiteral("td-requeued") << JobState::Requeued << QStringLiteral("BeginTime")
                              << 1;
    QTest::addRow("requeue held") << QStringLiteral("td-requeue-held") << JobState::Requeued
                                  << QStringLiteral("job_requeued_in_held_state") << 1;
    QTest::addRow("never") << QStringLiteral("td-dependency-never") << JobState::Pending
                           << QStringLiteral("DependencyNeverSatisfied") << 0;
}

void TestScontrolParser::activeStates()
{
    QFETCH(int, restarts);
    const JobInfo *job = verifyQueuedJob(m_active);
    if (!job)
        return;
    QCOMPARE(job->restarts, restarts);
    QCOMPARE(job->exitCode, -1);
}

void TestScontrolParser::finalStates_data()
{
    addEndedJobColumns();
    addSlurmEndedJobRows(15);
    QTest::addRow("requeued, then completed") << QStringLiteral("td-requeued") << JobState::Completed << 0 << 0;
}

void TestScontrolParser::finalStates()
{
    const JobInfo *job = verifyEndedJob(m_final);
    if (!job)
        return;
    QVERIFY(job->started.isValid());
}

void TestScontrolParser::valuesWithSpaces()
{
    QVERIFY(jobNamed(m_final, QStringLiteral("td name | with spaces")));
    const QString line = QString::fromUtf8(fixture(QStringLiteral("slurm-scontrol-active.txt"))).section(u'\n', 0, 0);
    const QHash<QString, QString> fields = scontrolFields(line);
    QVERIFY(fields.value(QStringLiteral("Command")).endsWith(QStringLiteral("/job scripts/ok.sh")));
    QCOMPARE(fields.value(QStringLiteral("TRES")), QStringLiteral("cpu=1,node=1,billing=1"));
    QCOMPARE(fields.value(QStringLiteral("ReqB:S:C:T")), QStringLiteral("0:0:*:*"));
    QCOMPARE(fields.value(QStringLiteral("Power")), QString());
    const JobInfo *timeout = jobNamed(m_final, QStringLiteral("td-timeout"));
    QCOMPARE(timeout->timeLimitSeconds, qint64(60));
    QVERIFY(timeout->elapsedSeconds >= 60);
    QCOMPARE(timeout->nodes, QStringLiteral("node1"));
}

void TestScontrolParser::freeTextOnlyEndsAtAKnownKey()
{
    const QHash<QString, QString> fields = scontrolFields(
        QStringLiteral("JobId=7 JobName=lr=0.1 bs=64 UserId=a(1) JobState=RUNNING Reason=launch failed requeued held "
                       "Dependency=(null) Command=/home/a/my run.sh --lr 0.1 x=y WorkDir=/home/a/my dir Power="));
    QCOMPARE(fields.value(QStringLiteral("JobName")), QStringLiteral("lr=0.1 bs=64"));
    QCOMPARE(fields.value(QStringLiteral("Reason")), QStringLiteral("launch failed requeued held"));
    QCOMPARE(fields.value(QStringLiteral("Command")), QStringLiteral("/home/a/my run.sh --lr 0.1 x=y"));
    QCOMPARE(fields.value(QStringLiteral("WorkDir")), QStringLiteral("/home/a/my dir"));
    QCOMPARE(fields.value(QStringLiteral("UserId")), QStringLiteral("a(1)"));
    QVERIFY(!fields.contains(QStringLiteral("bs")));
}

void TestScontrolParser::arrayTaskIds()
{
    const JobListResult result = parseScontrolShowJob(
        "JobId=101 ArrayJobId=100 ArrayTaskId=1 JobName=sweep JobState=COMPLETED Restarts=0 ExitCode=0:0\n"
        "JobId=100 ArrayJobId=100 ArrayTaskId=2-5 JobName=sweep JobState=PENDING Restarts=0 ExitCode=0:0\n");
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.at(0).id, QStringLiteral("100_1"));
    QCOMPARE(result.jobs.at(1).id, QStringLiteral("100_2-5"));
}

void TestScontrolParser::malformed_data()
{
    addRejectedOutputColumns();
    QTest::addRow("garbage") << QByteArray("%%%% not scontrol\n") << QStringLiteral("line 1: no JobId=<number>");
    QTest::addRow("non-numeric id") << QByteArray("JobId=abc JobName=x JobState=RUNNING\n")
                                    << QStringLiteral("line 1: no JobId=<number>");
    QTest::addRow("truncated") << QByteArray("JobId=12 JobName=x UserId=root(0) GroupId=ro")
                               << QStringLiteral("line 1: no JobId=<number> and JobState=");
    addSlurmErrorReplyRow("error reply");
}

void TestScontrolParser::malformed()
{
    verifyRejectedOutput(parseScontrolShowJob);
}

void TestScontrolParser::badLineKeepsTheOthers()
{
    QByteArray output = fixture(QStringLiteral("slurm-scontrol-final.txt"));
    output.insert(0, "garbage\n");
    const JobListResult result = parseScontrolShowJob(output);
    QCOMPARE(result.jobs.size(), 15);
    QCOMPARE(result.errors.size(), 1);
    QVERIFY(parseScontrolShowJob("No jobs in the system\n").ok());
    QVERIFY(parseScontrolShowJob("").jobs.isEmpty());
}

TORCHDECK_TEST_MAIN(TestScontrolParser)
#include "tst_scontrolparser.moc"
