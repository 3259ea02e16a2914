#include "core/scheduler/qstatfullparser.h"
#include "core/scheduler/qstatjsonparser.h"
#include "fixture.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestQstatJsonParser : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void states_data();
    void states();
    void sameAsTextFormat();
    void nestedAttributes();
    void noJobsKey();
    void malformed_data();
    void malformed();
    void badJobKeepsTheOthers();

private:
    JobListResult m_result;
};

void TestQstatJsonParser::initTestCase()
{
    m_result = parseQstatJson(fixture(QStringLiteral("pbspro-qstat-f-json.txt")));
    QVERIFY2(m_result.ok(), qPrintable(m_result.errorString()));
    QCOMPARE(m_result.jobs.size(), 8);
}

void TestQstatJsonParser::states_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<JobState>("state");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("signal");
    QTest::addRow("running") << QStringLiteral("1234.pbs01") << JobState::Running << -1 << 0;
    QTest::addRow("held") << QStringLiteral("1235.pbs01") << JobState::Pending << -1 << 0;
    QTest::addRow("requeued") << QStringLiteral("1236.pbs01") << JobState::Requeued << -1 << 0;
    QTest::addRow("completed") << QStringLiteral("1230.pbs01") << JobState::Completed << 0 << 0;
    QTest::addRow("failed") << QStringLiteral("1231.pbs01") << JobState::Failed << 3 << 0;
    QTest::addRow("walltime code") << QStringLiteral("1233.pbs01") << JobState::Timeout << -29 << 0;
    QTest::addRow("walltime signal") << QStringLiteral("1232.pbs01") << JobState::Timeout << 271 << 15;
    QTest::addRow("qdel") << QStringLiteral("1229.pbs01") << JobState::Cancelled << 271 << 15;
}

void TestQstatJsonParser::states()
{
    QFETCH(QString, id);
    QFETCH(JobState, state);
    QFETCH(int, exitCode);
    QFETCH(int, signal);
    const JobInfo *job = m_result.find(id);
    QVERIFY(job);
    QCOMPARE(job->state, state);
    QCOMPARE(job->exitCode, exitCode);
    QCOMPARE(job->signal, signal);
}

void TestQstatJsonParser::sameAsTextFormat()
{
    // The JSON and the text fixtures describe the same jobs: both parsers must agree.
    const JobListResult text = parseQstatFull(fixture(QStringLiteral("pbspro-qstat-f.txt")), PbsDialect::PbsPro);
    QCOMPARE(text.jobs.size(), m_result.jobs.size());
    for (const JobInfo &job : text.jobs) {
        const JobInfo *json = m_result.find(job.id);
        QVERIFY(json);
        QCOMPARE(json->state, job.state);
        QCOMPARE(json->name, job.name);
        QCOMPARE(json->reason, job.reason);
        QCOMPARE(json->nodes, job.nodes);
        QCOMPARE(json->submitted, job.submitted);
        QCOMPARE(json->started, job.started);
        QCOMPARE(json->ended, job.ended);
        QCOMPARE(json->exitCode, job.exitCode);
        QCOMPARE(json->restarts, job.restarts);
        QCOMPARE(json->timeLimitSeconds, job.timeLimitSeconds);
        QCOMPARE(json->elapsedSeconds, job.elapsedSeconds);
    }
}

void TestQstatJsonParser::nestedAttributes()
{
    const JobInfo *job = m_result.find(QStringLiteral("1234.pbs01"));
    QCOMPARE(job->timeLimitSeconds, qint64(7200)); // Resource_List.walltime
    QCOMPARE(job->elapsedSeconds, qint64(3723));   // resources_used.walltime
    QCOMPARE(job->nodes, QStringLiteral("node07,node08"));
    QCOMPARE(job->restarts, 0);
}

void TestQstatJsonParser::noJobsKey()
{
    const JobListResult result = parseQstatJson(fixture(QStringLiteral("pbspro-qstat-f-json-nojobs.txt")));
    QVERIFY(result.ok());
    QVERIFY(result.jobs.isEmpty());
}

void TestQstatJsonParser::malformed_data()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<QString>("error");
    QTest::addRow("empty") << QByteArray() << QStringLiteral("not JSON");
    QTest::addRow("garbage") << QByteArray("qstat: illegal -F value\n") << QStringLiteral("not JSON");
    QTest::addRow("array") << QByteArray("[1, 2]") << QStringLiteral("qstat's JSON is not an object");
    QTest::addRow("string") << QByteArray("\"Jobs\"") << QStringLiteral("not JSON"); // Qt wants a container
    QTest::addRow("truncated") << fixture(QStringLiteral("pbspro-qstat-f-json.txt")).left(900)
                               << QStringLiteral("not JSON");
    QTest::addRow("Jobs is a list") << QByteArray(R"({"Jobs": []})") << QStringLiteral("\"Jobs\" is not an object");
}

void TestQstatJsonParser::malformed()
{
    QFETCH(QByteArray, output);
    QFETCH(QString, error);
    const JobListResult result = parseQstatJson(output);
    QVERIFY(result.jobs.isEmpty());
    QCOMPARE(result.errors.size(), 1);
    QVERIFY2(result.errors.constFirst().startsWith(error), qPrintable(result.errorString()));
}

void TestQstatJsonParser::badJobKeepsTheOthers()
{
    const JobListResult result = parseQstatJson(R"({"Jobs": {
        "1.s": {"job_state": "R", "Exit_status": "x"},
        "2.s": "not an object",
        "garbage id": {"job_state": "Q"},
        "3.s": {"Job_Name": "no state"},
        "4.s": {"job_state": "F", "Exit_status": 0, "run_count": 1}}})");
    QCOMPARE(result.jobs.size(), 2);
    QCOMPARE(result.errors.size(), 3);
    QCOMPARE(result.find(QStringLiteral("4.s"))->state, JobState::Completed);
    QCOMPARE(result.find(QStringLiteral("1.s"))->state, JobState::Running);
}

TORCHDECK_TEST_MAIN(TestQstatJsonParser)
#include "tst_qstatjsonparser.moc"
