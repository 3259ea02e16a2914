#include "core/scheduler/qstattableparser.h"
#include "fixture.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestQstatTableParser : public QObject {
    Q_OBJECT
private slots:
    void wrapperActive_data();
    void wrapperActive();
    void wrapperFinalIsAllCompleted();
    void pbsPro();
    void pbsProHistory();
    void severalTables();
    void malformed_data();
    void malformed();
};

void TestQstatTableParser::wrapperActive_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<JobState>("state");
    QTest::addColumn<QString>("raw");
    // The wrapper cuts names to 16 characters and keeps spaces inside them.
    QTest::addRow("running") << QStringLiteral("td-timeout") << JobState::Running << QStringLiteral("R");
    QTest::addRow("suspended") << QStringLiteral("td-running") << JobState::Pending << QStringLiteral("S");
    QTest::addRow("held shows Q") << QStringLiteral("td-held") << JobState::Pending << QStringLiteral("Q");
    QTest::addRow("cut name") << QStringLiteral("td-pending-resou") << JobState::Pending << QStringLiteral("Q");
    QTest::addRow("spaces") << QStringLiteral("td name | with s") << JobState::Completed << QStringLiteral("C");
    QTest::addRow("failed shows C") << QStringLiteral("td-failed") << JobState::Completed << QStringLiteral("C");
}

void TestQstatTableParser::wrapperActive()
{
    QFETCH(QString, name);
    QFETCH(JobState, state);
    QFETCH(QString, raw);
    const JobListResult result = parseQstatTable(fixture(QStringLiteral("torque-wrapper-qstat-active.txt")));
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 15);
    const JobInfo *job = jobNamed(result, name);
    QVERIFY(job);
    QCOMPARE(job->state, state);
    QCOMPARE(job->rawState, raw);
    QCOMPARE(job->queue, QStringLiteral("debug"));
    QCOMPARE(job->exitCode, -1); // the table never says how a job ended
}

void TestQstatTableParser::wrapperFinalIsAllCompleted()
{
    const JobListResult result = parseQstatTable(fixture(QStringLiteral("torque-wrapper-qstat-final.txt")));
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 15);
    for (const JobInfo &job : result.jobs) {
        QVERIFY(job.id.toInt() > 0);
        QCOMPARE(job.state, JobState::Completed);
    }
}

void TestQstatTableParser::pbsPro()
{
    const JobListResult result = parseQstatTable(fixture(QStringLiteral("pbspro-qstat.txt")));
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 6);
    QCOMPARE(result.jobs.at(0).id, QStringLiteral("1234.pbs01"));
    QCOMPARE(result.jobs.at(0).name, QStringLiteral("train resnet"));
    QCOMPARE(result.jobs.at(0).state, JobState::Running);
    QCOMPARE(result.find(QStringLiteral("1235.pbs01"))->state, JobState::Pending);   // H
    QCOMPARE(result.find(QStringLiteral("1237[].pbs01"))->state, JobState::Running); // B
    QCOMPARE(result.find(QStringLiteral("1238.pbs01"))->state, JobState::Pending);   // W
    QCOMPARE(result.find(QStringLiteral("1238.pbs01"))->queue, QStringLiteral("gpu"));
    QCOMPARE(result.find(QStringLiteral("1239.pbs01"))->state, JobState::Completing); // E
    QCOMPARE(result.find(QStringLiteral("1239.pbs01"))->name, QStringLiteral("train-resnet50-*"));
}

void TestQstatTableParser::pbsProHistory()
{
    const JobListResult result = parseQstatTable(fixture(QStringLiteral("pbspro-qstat-x.txt")));
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 6);
    QCOMPARE(result.find(QStringLiteral("1231.pbs01"))->state,
             JobState::Completed); // F: outcome unknown here
    QCOMPARE(result.find(QStringLiteral("1231.pbs01"))->exitCode, -1);
    QCOMPARE(result.find(QStringLiteral("1237[3].pbs01"))->state, JobState::Completed); // X
}

void TestQstatTableParser::severalTables()
{
    QByteArray output = fixture(QStringLiteral("pbspro-qstat.txt"));
    output += "\n" + fixture(QStringLiteral("torque-wrapper-qstat-final.txt"));
    const JobListResult result = parseQstatTable(output);
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 21);
}

void TestQstatTableParser::malformed_data()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<int>("jobs");
    QTest::addColumn<QString>("error");
    const QByteArray header = "Job id            Name             User              Time Use S Queue\n"
                              "----------------  ---------------- ----------------  -------- - -----\n";
    QTest::addRow("no header") << QByteArray("1234.pbs01 name user 0 R q\n") << 0
                               << QStringLiteral("line 1: a row without a table header");
    QTest::addRow("garbage") << QByteArray("qstat: cannot connect to server pbs01 (errno=111)\n") << 0
                             << QStringLiteral("line 1:");
    QTest::addRow("cut id") << header + "123456789012.pb*  name             user                     0 R q\n"
                            << 0 << QStringLiteral("line 3: '123456789012.pb*' is not a whole PBS job id");
    QTest::addRow("bad state") << header + "1234.pbs01        name             user                     0 ? q\n"
                                           "1235.pbs01        name             user                     0 R q\n"
                               << 1 << QStringLiteral("line 3: '?' is not a PBS job state");
    QTest::addRow("truncated row") << header + "1234.pbs01        nam" << 0 << QStringLiteral("line 3: '' is not");
    QTest::addRow("too few columns") << QByteArray("Job id  Name\n------  ----\n1 x\n") << 0
                                     << QStringLiteral("line 2: 2 columns, expected 6");
}

void TestQstatTableParser::malformed()
{
    QFETCH(QByteArray, output);
    QFETCH(int, jobs);
    QFETCH(QString, error);
    const JobListResult result = parseQstatTable(output);
    QCOMPARE(result.jobs.size(), jobs);
    QVERIFY(!result.ok());
    QVERIFY2(result.errors.constFirst().startsWith(error), qPrintable(result.errorString()));
}

QTEST_GUILESS_MAIN(TestQstatTableParser)
#include "tst_qstattableparser.moc"
