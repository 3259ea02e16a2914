// A job's own record of its start and end (core/jobs/jobtrace.h): what a takeover and a forgotten job are
// settled by. The script lines are run by bash here, as a job runs them.
#include "core/jobs/jobtrace.h"
#include "testmain.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

Q_DECLARE_METATYPE(torchdeck::SchedulerKind)

class TestJobTrace : public QObject {
    Q_OBJECT
private slots:
    void parse_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("jobId");
        QTest::addColumn<bool>("ended");
        QTest::addColumn<int>("exitCode");
        QTest::addRow("nothing") << QByteArray() << QString() << false << -1;
        QTest::addRow("started") << QByteArray("start 123\n") << QStringLiteral("123") << false << -1;
        QTest::addRow("ended") << QByteArray("start 123\nend 123 0\n") << QStringLiteral("123") << true << 0;
        QTest::addRow("failed") << QByteArray("start 123\nend 123 3\n") << QStringLiteral("123") << true << 3;
        QTest::addRow("requeued in the job: started again")
            << QByteArray("start 123\nend 123 75\nstart 123\n") << QStringLiteral("123") << false << -1;
        QTest::addRow("an array task") << QByteArray("start 77_4\nend 77_4 0\n") << QStringLiteral("77_4") << true << 0;
        QTest::addRow("a PBS subjob") << QByteArray("start 12[3].pbs01\n") << QStringLiteral("12[3].pbs01") << false
                                      << -1;
        QTest::addRow("another job's end")
            << QByteArray("start 123\nend 99 0\n") << QStringLiteral("123") << false << -1;
        QTest::addRow("torn last line") << QByteArray("start 123\nend 123") << QStringLiteral("123") << false << -1;
        QTest::addRow("garbage between") << QByteArray("start 123\n\xff\xfe junk\nend 123 x\nend 123 1\n")
                                         << QStringLiteral("123") << true << 1;
        QTest::addRow("hostile id") << QByteArray("start $(rm -rf ~)\n") << QString() << false << -1;
        QTest::addRow("out of range code") << QByteArray("start 5\nend 5 999\n") << QStringLiteral("5") << false << -1;
    }
    void parse()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, jobId);
        QFETCH(bool, ended);
        QFETCH(int, exitCode);
        const JobTrace trace = parseJobTrace(text);
        QCOMPARE(trace.jobId, jobId);
        QCOMPARE(trace.ended, ended);
        QCOMPARE(trace.exitCode, exitCode);
    }

    void noPathNoLines() { QVERIFY(jobTraceLines({}, SchedulerKind::Slurm).isEmpty()); }

    // The lines as a job runs them: the start first, the end with the script's exit code, whatever ends it.
    void aJobKeepsItsRecord_data()
    {
        QTest::addColumn<SchedulerKind>("scheduler");
        QTest::addColumn<QStringList>("environment");
        QTest::addColumn<QString>("body");
        QTest::addColumn<QByteArray>("expected");
        QTest::addRow("slurm") << SchedulerKind::Slurm << QStringList{QStringLiteral("SLURM_JOB_ID=41")}
                               << QStringLiteral("true") << QByteArray("start 41\nend 41 0\n");
        QTest::addRow("slurm array task")
            << SchedulerKind::Slurm
            << QStringList{QStringLiteral("SLURM_JOB_ID=43"), QStringLiteral("SLURM_ARRAY_JOB_ID=40"),
                           QStringLiteral("SLURM_ARRAY_TASK_ID=2")}
            << QStringLiteral("exit 3") << QByteArray("start 40_2\nend 40_2 3\n");
        QTest::addRow("a failing command under set -e")
            << SchedulerKind::Slurm << QStringList{QStringLiteral("SLURM_JOB_ID=42")} << QStringLiteral("false")
            << QByteArray("start 42\nend 42 1\n");
        QTest::addRow("pbs") << SchedulerKind::Pbs << QStringList{} << QStringLiteral("td_x=1")
                             << QByteArray("start 7[1].pbs\nend 7[1].pbs 0\n");
    }
    void aJobKeepsItsRecord()
    {
        QFETCH(SchedulerKind, scheduler);
        QFETCH(QStringList, environment);
        QFETCH(QString, body);
        QFETCH(QByteArray, expected);
        QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/it's a \"run\" $(x)-XXXXXX"));
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("attempt-0.job"));
        QStringList script{QStringLiteral("set -euo pipefail")};
        if (scheduler == SchedulerKind::Pbs)
            script << QStringLiteral("td_job_id='7[1].pbs'");
        script << jobTraceLines(path, scheduler) << body;
        QProcess bash;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString &variable : std::as_const(environment))
            env.insert(variable.section(u'=', 0, 0), variable.section(u'=', 1));
        bash.setProcessEnvironment(env);
        bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), script.join(u'\n')});
        QVERIFY(bash.waitForFinished());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), expected);
    }
};

TORCHDECK_TEST_MAIN(TestJobTrace)
#include "tst_jobtrace.moc"
