#include "core/scheduler/localcommands.h"
#include "core/scheduler/submitreply.h"
#include "fixture.h"
#include "testmain.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestLocalCommands : public QObject {
    Q_OBJECT
private slots:
    void parsesStatusLines();
    void malformed_data();
    void malformed();
    void runsAndReportsRealProcesses();

private:
    static QByteArray run(const QStringList &argv);
};

QByteArray TestLocalCommands::run(const QStringList &argv)
{
    QProcess process;
    process.start(argv.first(), argv.mid(1));
    process.waitForFinished(10000);
    return process.readAllStandardOutput();
}

void TestLocalCommands::parsesStatusLines()
{
    const JobListResult result =
        local::parseLocalStatus("10 running\n11 exited 0\n12 exited 3\n13 exited 143\n14 gone\n");
    QVERIFY2(result.ok(), qPrintable(result.errorString()));
    QCOMPARE(result.jobs.size(), 5);
    QCOMPARE(result.jobs.at(0).state, JobState::Running);
    QCOMPARE(result.jobs.at(1).state, JobState::Completed);
    QCOMPARE(result.jobs.at(2).state, JobState::Failed);
    QCOMPARE(result.jobs.at(2).exitCode, 3);
    QCOMPARE(result.jobs.at(3).state, JobState::Cancelled);
    QCOMPARE(result.jobs.at(3).signal, 15);
    QCOMPARE(result.jobs.at(4).state, JobState::Failed);
}

void TestLocalCommands::malformed_data()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addRow("garbage") << QByteArray("sh: 1: syntax error\n");
    QTest::addRow("non-numeric id") << QByteArray("abc running\n");
    QTest::addRow("exit without code") << QByteArray("12 exited\n");
    QTest::addRow("exit not a number") << QByteArray("12 exited x\n");
    QTest::addRow("unknown word") << QByteArray("12 sleeping\n");
}

void TestLocalCommands::malformed()
{
    QFETCH(QByteArray, output);
    const JobListResult result = local::parseLocalStatus(output);
    QVERIFY(result.jobs.isEmpty());
    QVERIFY(result.errors.constFirst().startsWith(QStringLiteral("line 1:")));
}

void TestLocalCommands::runsAndReportsRealProcesses()
{
    // The commands are shell code: run them for real with sh, as the remote side will.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString state = dir.filePath(QStringLiteral("state dir"));
    const QString quick = dir.filePath(QStringLiteral("quick job.sh"));
    const QString slow = dir.filePath(QStringLiteral("slow.sh"));
    {
        QFile file(quick);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("echo \"it's $((6 * 7))\"; exit 4\n");
    }
    {
        QFile file(slow);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("sleep 30\n");
    }
    const SubmitResult first = parseLocalReply(run(local::submitArgs(state, quick)));
    const SubmitResult second = parseLocalReply(run(local::submitArgs(state, slow)));
    QVERIFY2(first.ok() && second.ok(), qPrintable(first.error + second.error));
    const QStringList ids = {first.jobId, second.jobId};
    QTRY_VERIFY_WITH_TIMEOUT(
        local::parseLocalStatus(run(local::statusArgs(state, ids))).jobs.constFirst().state == JobState::Failed, 5000);
    JobListResult result = local::parseLocalStatus(run(local::statusArgs(state, ids)));
    QCOMPARE(result.jobs.at(0).exitCode, 4);
    QCOMPARE(result.jobs.at(1).state, JobState::Running);
    QFile log(state + u'/' + first.jobId + QStringLiteral(".log"));
    QVERIFY(log.open(QIODevice::ReadOnly));
    QCOMPARE(log.readAll(), QByteArray("it's 42\n"));

    run(local::cancelArgs({second.jobId}));
    QTRY_VERIFY_WITH_TIMEOUT(
        local::parseLocalStatus(run(local::statusArgs(state, ids))).jobs.at(1).state == JobState::Cancelled, 5000);
    result = local::parseLocalStatus(run(local::statusArgs(state, QStringList{QStringLiteral("999999999")})));
    QCOMPARE(result.jobs.constFirst().state, JobState::Failed); // gone: no process, no exit file
}

TORCHDECK_TEST_MAIN(TestLocalCommands)
#include "tst_localcommands.moc"
