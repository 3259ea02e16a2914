#include "core/scheduler/qstatfullparser.h"
#include "fixture.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestQstatFullParser : public QObject {
    Q_OBJECT
private slots:
    void wrapper_data();
    void wrapper();
    void wrapperWalltime();
    void pbsPro_data();
    void pbsPro();
    void pbsProWrappedValues();
    void torque_data();
    void torque();
    void continuationIndentedWithSpaces();
    void malformed_data();
    void malformed();
};

void TestQstatFullParser::wrapper_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("name");
    QTest::addColumn<JobState>("state");
    const QString active = QStringLiteral("torque-wrapper-qstat-f-active.txt");
    const QString final = QStringLiteral("torque-wrapper-qstat-f-final.txt");
    QTest::addRow("running") << active << QStringLiteral("td-timeout") << JobState::Running;
    QTest::addRow("suspended") << active << QStringLiteral("td-running") << JobState::Pending;
    QTest::addRow("queued") << active << QStringLiteral("td-pbs") << JobState::Pending;
    QTest::addRow("long name whole") << active
                                     << QStringLiteral("td-a-rather-long-job-name-that-is-longer-than-forty-characters")
                                     << JobState::Completed;
    QTest::addRow("spaces") << final << QStringLiteral("td name | with spaces") << JobState::Completed;
    QTest::addRow("timeout shows C") << final << QStringLiteral("td-timeout") << JobState::Completed;
}

void TestQstatFullParser::wrapper()
{
    QFETCH(QString, file);
    QFETCH(QString, name);
    QFETCH(JobState, state);
    const JobListResult result = parseQstatFull(fixture(file), PbsDialect::Torque);
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 15);
    const JobInfo *job = jobNamed(result, name);
    QVERIFY(job);
    QCOMPARE(job->state, state);
    QVERIFY(job->submitted.isValid());
    QCOMPARE(job->exitCode, -1);
}

void TestQstatFullParser::wrapperWalltime()
{
    const JobListResult result =
        parseQstatFull(fixture(QStringLiteral("torque-wrapper-qstat-f-active.txt")), PbsDialect::Torque);
    QCOMPARE(jobNamed(result, QStringLiteral("td-timeout"))->timeLimitSeconds, qint64(60));
    QCOMPARE(jobNamed(result, QStringLiteral("td-pbs"))->timeLimitSeconds, qint64(600));
    QCOMPARE(jobNamed(result, QStringLiteral("td-held"))->timeLimitSeconds, qint64(0)); // 71582788:15:00
    QCOMPARE(jobNamed(result, QStringLiteral("td-timeout"))->nodes, QStringLiteral("node1"));
}

void TestQstatFullParser::pbsPro_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<JobState>("state");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("restarts");
    QTest::addRow("running") << QStringLiteral("1234.pbs01") << JobState::Running << -1 << 0;
    QTest::addRow("held") << QStringLiteral("1235.pbs01") << JobState::Pending << -1 << -1;
    QTest::addRow("requeued") << QStringLiteral("1236.pbs01") << JobState::Requeued << -1 << 1;
    QTest::addRow("completed") << QStringLiteral("1230.pbs01") << JobState::Completed << 0 << 0;
    QTest::addRow("failed") << QStringLiteral("1231.pbs01") << JobState::Failed << 3 << 0;
    QTest::addRow("walltime code") << QStringLiteral("1233.pbs01") << JobState::Timeout << -29 << 0;
    QTest::addRow("walltime signal") << QStringLiteral("1232.pbs01") << JobState::Timeout << 271 << 0;
    QTest::addRow("qdel") << QStringLiteral("1229.pbs01") << JobState::Cancelled << 271 << 0;
}

void TestQstatFullParser::pbsPro()
{
    QFETCH(QString, id);
    QFETCH(JobState, state);
    QFETCH(int, exitCode);
    QFETCH(int, restarts);
    const JobListResult result = parseQstatFull(fixture(QStringLiteral("pbspro-qstat-f.txt")), PbsDialect::PbsPro);
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 8);
    const JobInfo *job = result.find(id);
    QVERIFY(job);
    QCOMPARE(job->state, state);
    QCOMPARE(job->exitCode, exitCode);
    QCOMPARE(job->restarts, restarts);
    QCOMPARE(job->ended.isValid(), isFinal(state));
}

void TestQstatFullParser::pbsProWrappedValues()
{
    const JobListResult result = parseQstatFull(fixture(QStringLiteral("pbspro-qstat-f.txt")), PbsDialect::PbsPro);
    const JobInfo *job = result.find(QStringLiteral("1234.pbs01"));
    QVERIFY(job);
    QCOMPARE(job->name, QStringLiteral("train resnet"));
    QCOMPARE(job->nodes, QStringLiteral("node07,node08"));
    // The comment wraps in the middle of "ncpus": joined back without a separator.
    QCOMPARE(job->reason,
             QStringLiteral("Job run at Sun Nov 22 at 17:00 on (node07:ncpus=4:ngpus=1)+(node08:ncpus=4:ngpus=1)"));
    QCOMPARE(job->started, QDateTime(QDate(2026, 11, 22), QTime(17, 0, 4)));
    QCOMPARE(job->timeLimitSeconds, qint64(7200));
    QCOMPARE(job->elapsedSeconds, qint64(3723));
    QCOMPARE(job->queue, QStringLiteral("workq"));
    const JobInfo *timeout = result.find(QStringLiteral("1233.pbs01"));
    QCOMPARE(timeout->ended, QDateTime(QDate(2026, 11, 22), QTime(16, 22, 3)));
    QCOMPARE(result.find(QStringLiteral("1232.pbs01"))->signal, 15);
}

void TestQstatFullParser::torque_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<JobState>("state");
    QTest::addColumn<int>("exitCode");
    QTest::addRow("exec failed") << QStringLiteral("179.host") << JobState::Failed << -1;
    QTest::addRow("walltime") << QStringLiteral("180.host") << JobState::Timeout << -11;
    QTest::addRow("qdel") << QStringLiteral("181.host") << JobState::Cancelled << 271;
    QTest::addRow("running") << QStringLiteral("182.host") << JobState::Running << -1;
}

void TestQstatFullParser::torque()
{
    QFETCH(QString, id);
    QFETCH(JobState, state);
    QFETCH(int, exitCode);
    const JobListResult result = parseQstatFull(fixture(QStringLiteral("torque-qstat-f.txt")), PbsDialect::Torque);
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 4);
    const JobInfo *job = result.find(id);
    QVERIFY(job);
    QCOMPARE(job->state, state);
    QCOMPARE(job->exitCode, exitCode);
    QCOMPARE(result.find(QStringLiteral("180.host"))->nodes, QStringLiteral("node1,node2"));
    QCOMPARE(result.find(QStringLiteral("180.host"))->ended, QDateTime(QDate(2008, 8, 29), QTime(15, 10, 3)));
}

void TestQstatFullParser::continuationIndentedWithSpaces()
{
    // Torque's guide shows wrapped lines indented by two spaces: still a continuation.
    const JobListResult result = parseQstatFull("Job Id: 9.host\n    Job_Name = a\n    comment = first ha\n  lf\n"
                                                "    job_state = Q\n",
                                                PbsDialect::Torque);
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.constFirst().reason, QStringLiteral("first half"));
}

void TestQstatFullParser::malformed_data()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<int>("jobs");
    QTest::addColumn<QString>("error");
    QTest::addRow("garbage") << QByteArray("qstat: Unknown Job Id 99.pbs01\n") << 0
                             << QStringLiteral("line 1: attribute before any 'Job Id:' line");
    QTest::addRow("non-numeric id") << QByteArray("Job Id: abc\n    job_state = R\nJob Id: 5.s\n    job_state = R\n")
                                    << 1 << QStringLiteral("line 1: 'abc' is not a PBS job id");
    QTest::addRow("no state") << QByteArray("Job Id: 5.s\n    Job_Name = x\n") << 0
                              << QStringLiteral("line 1: job 5.s has no job_state");
    QTest::addRow("truncated") << QByteArray("Job Id: 5.s\n    Job_Name = x\n    job_st") << 0
                               << QStringLiteral("line 3: not 'name = value' in job 5.s");
}

void TestQstatFullParser::malformed()
{
    QFETCH(QByteArray, output);
    QFETCH(int, jobs);
    QFETCH(QString, error);
    const JobListResult result = parseQstatFull(output, PbsDialect::PbsPro);
    QCOMPARE(result.jobs.size(), jobs);
    QVERIFY(!result.ok());
    QVERIFY2(result.errors.constFirst().startsWith(error), qPrintable(result.errorString()));
}

TORCHDECK_TEST_MAIN(TestQstatFullParser)
#include "tst_qstatfullparser.moc"
